(function () {
  "use strict";
  var data = null;
  function D() {  // parsed on first use, not while the page loads
    if (!data) data = JSON.parse(document.getElementById("report-data").textContent);
    return data;
  }
  function all(sel, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(sel));
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function secs(ms) {
    var v = ms / 1000;
    return v < 1 ? v.toFixed(3) : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
  }
  var cache = {};
  function student(i) {
    if (!cache[i]) {
      var s = D().students[i], x = {}, p = [];
      s.x.forEach(function (r) { x[r[0]] = r; });
      (s.p ? s.p.split(" ") : []).forEach(function (run) {  // "place*count" or "place"
        var a = run.split("*"), n = a.length > 1 ? parseInt(a[1], 36) : 1;
        while (n-- > 0) p.push(parseInt(a[0], 36));
      });
      cache[i] = {
        id: s.id, g: s.g, x: x, p: p,
        c: s.c.split(" ").map(function (v) { return parseInt(v, 36); }),
        w: s.w.split(" ").map(function (v) { return parseInt(v, 36); })
      };
    }
    return cache[i];
  }
  function result(i, t) {
    var s = student(i), x = s.x[t] || [t, -1, -1];
    var grade = D().grades[parseInt(s.g.charAt(t), 36)];
    return {
      test: D().tests[t], grade: grade, name: D().words.names[grade] || grade,
      points: D().points[t], earned: grade === "correct" ? D().points[t] : 0,
      cpu: secs(s.c[t]), wall: secs(s.w[t]), place: D().places[s.p[t]] || "",
      detail: x[1] < 0 ? "" : D().strings[x[1]],
      evidence: x[2] === -1 ? "" : x[2] === -2 ? D().cut : D().strings[x[2]]
    };
  }
  function describe(i, t) {
    var r = result(i, t);
    return student(i).id + " \u00b7 " + r.test + ": " + r.name + ", " + r.cpu +
      " " + D().words.cpu + (r.detail ? " \u2014 " + r.detail : "");
  }
  function sortable(table) {
    var heads = all("thead th", table), body = table.tBodies[0];
    all("tr", body).forEach(function (r, n) { r.dataset.n = n; });
    heads.forEach(function (th, col) {
      th.classList.add("sort");
      th.tabIndex = 0;
      function go() {
        var up = th.getAttribute("aria-sort") !== "ascending";
        var text = th.classList.contains("txt");
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var rows = all("tr", body).map(function (r) {
          var v = r.cells[col] ? r.cells[col].textContent : "";
          return [text ? v : parseFloat(v) || 0, +r.dataset.n, r];
        });
        rows.sort(function (a, b) {
          var d = text ? a[0].localeCompare(b[0]) : a[0] - b[0];
          return (up ? d : -d) || a[1] - b[1];
        });
        rows.forEach(function (r) { body.appendChild(r[2]); });
        if (table.id === "class-table") {  // the matrix follows the class table
          var m = document.getElementById("matrix");
          rows.forEach(function (r) {
            var row = m.querySelector(".mrow[data-i=\"" + r[2].dataset.i + "\"]");
            if (row) m.appendChild(row);
          });
        }
      }
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); }
      });
    });
  }
  function filter(input, count, groups, names) {
    input.hidden = false;
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase(), shown = 0;
      var keep = names.map(function (n) {
        var k = n.toLowerCase().indexOf(q) >= 0;
        if (k) shown += 1;
        return k;
      });
      groups.forEach(function (sel) {
        all(sel).forEach(function (e) { e.hidden = !keep[+e.dataset.i]; });
      });
      // The words come in the page's language (report_html's data block).
      count.textContent = q ? D().words.shown.replace("%(shown)s", shown)
        .replace("%(all)s", names.length) : "";
    });
  }
  function render(d) {
    var i = +d.dataset.i, box = d.querySelector(".results");
    if (d.dataset.done) return;
    d.dataset.done = "1";
    var table = el("table"), head = el("tr"), body = el("tbody");
    ["", "", "num", "num", "num", "", ""].forEach(function (cls, n) {
      head.appendChild(el("th", D().words.heads[n], cls));
    });
    table.appendChild(el("thead")).appendChild(head);
    D().tests.forEach(function (_, t) {
      var r = result(i, t), tr = el("tr"), detail = el("td", r.detail, "detail");
      tr.appendChild(el("td", r.test, "test"));
      tr.appendChild(el("td")).appendChild(el("span", r.name,
        "badge g-" + r.grade.toLowerCase().replace(/[^a-z0-9]+/g, "-")));
      tr.appendChild(el("td", r.earned + " / " + r.points, "num"));
      tr.appendChild(el("td", r.cpu, "num"));
      tr.appendChild(el("td", r.wall, "num"));
      tr.appendChild(el("td", r.place, "place"));
      if (r.evidence) detail.appendChild(el("pre", r.evidence));
      tr.appendChild(detail);
      body.appendChild(tr);
    });
    table.appendChild(body);
    box.appendChild(table);
  }
  function open(i, t) {
    var d = document.querySelector("details.student[data-i=\"" + i + "\"]");
    if (!d) return;
    d.open = true;
    render(d);
    var row = t === undefined ? d : d.querySelectorAll(".results tbody tr")[t];
    all("tr.hit").forEach(function (r) { r.classList.remove("hit"); });
    if (row !== d) row.classList.add("hit");
    row.scrollIntoView({block: "start"});
  }
  function fromHash() {
    var e = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (e && e.matches("details.student")) open(+e.dataset.i);
  }
  sortable(document.getElementById("class-table"));
  sortable(document.getElementById("test-table"));
  var names = all("#class-table tbody tr a").map(function (a) { return a.textContent; });
  filter(document.getElementById("class-filter"), document.getElementById("class-count"),
    ["#class-table tbody tr", "#matrix .mrow", "details.student"], names);
  filter(document.getElementById("test-filter"), document.getElementById("test-count"),
    ["#test-table tbody tr"], all("#test-table tbody tr td:first-child").map(function (td) {
      return td.textContent;
    }));
  var matrix = document.getElementById("matrix"), info = document.getElementById("matrix-info");
  var tip = document.getElementById("matrix-tip"), step = +matrix.dataset.step;
  function cell(e) {
    if (e.target.tagName !== "IMG") return null;
    var t = Math.floor(e.offsetX / step);
    return t < 0 || t >= D().tests.length ? null : [+e.target.parentNode.dataset.i, t];
  }
  matrix.addEventListener("mousemove", function (e) {
    var c = cell(e);
    if (!c) { tip.hidden = true; return; }
    tip.textContent = info.textContent = describe(c[0], c[1]);
    tip.style.left = Math.min(e.clientX + 14, innerWidth - 300) + "px";
    tip.style.top = e.clientY + 16 + "px";
    tip.hidden = false;
  });
  matrix.addEventListener("mouseleave", function () { tip.hidden = true; });
  matrix.addEventListener("click", function (e) {
    var c = cell(e);
    if (c) open(c[0], c[1]);
  });
  document.addEventListener("toggle", function (e) {
    if (e.target.matches && e.target.matches("details.student") && e.target.open) render(e.target);
  }, true);
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
