(function () {
  "use strict";
  function applyFilter(box) {
    var mode = box.querySelector("select[data-mode]").value;
    var text = box.querySelector("input[data-find]").value.trim().toLowerCase();
    var rows = box.querySelectorAll("tbody tr");
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      var ok = true;
      if (mode === "attention") ok = r.getAttribute("data-changed") === "1" || r.getAttribute("data-failing") === "1";
      if (mode === "changed") ok = r.getAttribute("data-changed") === "1";
      if (mode === "failing") ok = r.getAttribute("data-failing") === "1";
      if (ok && text) ok = (r.getAttribute("data-id") || "").toLowerCase().indexOf(text) !== -1;
      r.hidden = !ok;
      if (ok) shown++;
    }
    var count = box.querySelector("[data-count]");
    if (count) count.textContent = shown + " of " + rows.length + " cases shown";
  }
  var boxes = document.querySelectorAll("[data-matrix]");
  for (var i = 0; i < boxes.length; i++) {
    (function (box) {
      var sel = box.querySelector("select[data-mode]");
      var inp = box.querySelector("input[data-find]");
      sel.addEventListener("change", function () { applyFilter(box); });
      inp.addEventListener("input", function () { applyFilter(box); });
      applyFilter(box);
    })(boxes[i]);
  }
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
  }
  // Scroll the drawn DAG next to the first finding to its root cause.
  var focus = document.querySelectorAll("[data-focus-root]");
  for (var f = 0; f < focus.length; f++) {
    var root = focus[f].querySelector(".node.root");
    if (root && root.getBBox) {
      var b = root.getBBox();
      focus[f].scrollTop = Math.max(0, b.y - focus[f].clientHeight / 3);
    }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  var toggles = document.querySelectorAll("[data-expand]");
  for (var j = 0; j < toggles.length; j++) {
    toggles[j].addEventListener("click", function (ev) {
      var open = ev.currentTarget.getAttribute("data-expand") === "1";
      var all = document.querySelectorAll("details.case");
      for (var k = 0; k < all.length; k++) all[k].open = open;
    });
  }
})();
