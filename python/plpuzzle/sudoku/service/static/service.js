// Keeps the live part of a page current: it asks for the page's status
// every few seconds and, when it changed, draws that part again from the
// server (autoescaped HTML, like the page itself). Without this script a
// reload shows the same.
//
// On the class page it also sorts and filters the students without a
// reload: the filter's fields and the columns' links ask the server for
// the live part with that query (the server's one rule chooses the rows,
// as it does for the page without script), and the address keeps the
// query for a reload.
"use strict";
(function () {
  const live = document.querySelector("[data-live]");
  if (!live) return;
  let version = live.dataset.version || null;
  let asked = 0;
  async function draw() {
    const mine = ++asked;
    const part = await fetch(live.dataset.live + location.search, { credentials: "same-origin" });
    if (part.ok && mine === asked) live.innerHTML = await part.text();
  }
  async function look() {
    try {
      const status = await fetch(live.dataset.status, { credentials: "same-origin" });
      if (!status.ok) return;
      const now = (await status.json()).version;
      if (version !== null && now !== version) await draw();
      version = now;
    } catch (e) {
      // the service is restarting: try again next time
    }
  }
  look();
  setInterval(look, 2000);

  const filter = document.getElementById("class-filter");
  if (!filter) return;
  function ask() {
    const query = new URLSearchParams();
    for (const [key, value] of new FormData(filter)) if (value) query.set(key, value);
    if (query.get("sort") === "student") query.delete("sort");
    const text = query.toString();
    history.replaceState(null, "", location.pathname + (text ? "?" + text : ""));
    draw().catch(() => {});
  }
  let typing = null;
  filter.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(ask, 200);
  });
  filter.addEventListener("change", ask);
  filter.addEventListener("submit", (event) => {
    event.preventDefault();
    ask();
  });
  live.addEventListener("click", (event) => {
    const link = event.target.closest("a.sort");
    if (!link) return;
    event.preventDefault();
    const chosen = new URL(link.href).searchParams;
    filter.elements.sort.value = chosen.get("sort") || "student";
    filter.elements.desc.value = chosen.get("desc") || "";
    ask();
  });
})();
