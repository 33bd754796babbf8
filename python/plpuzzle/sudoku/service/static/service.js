// Keeps the live part of a page current: it asks for the page's status
// every few seconds and, when it changed, draws that part again from the
// server (autoescaped HTML, like the page itself). Without this script a
// reload shows the same.
"use strict";
(function () {
  const live = document.querySelector("[data-live]");
  if (!live) return;
  let version = live.dataset.version || null;
  async function look() {
    try {
      const status = await fetch(live.dataset.status, { credentials: "same-origin" });
      if (!status.ok) return;
      const now = (await status.json()).version;
      if (version !== null && now !== version) {
        const part = await fetch(live.dataset.live, { credentials: "same-origin" });
        if (part.ok) live.innerHTML = await part.text();
      }
      version = now;
    } catch (e) {
      // the service is restarting: try again next time
    }
  }
  look();
  setInterval(look, 2000);
})();
