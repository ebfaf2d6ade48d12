(function () {
  "use strict";
  var list = document.getElementById("items");
  if (!list) { return; }
  var items = Array.prototype.slice.call(list.querySelectorAll("article.item"));
  var scorer = document.getElementById("scorer");
  var sort = document.getElementById("sort");
  var status = document.getElementById("status");
  var low = document.getElementById("min");
  var high = document.getElementById("max");
  var shown = document.getElementById("shown");
  var top = parseFloat(high.max);

  function chosen() { return scorer ? parseInt(scorer.value, 10) : 0; }

  function score(item) {
    var s = item.getAttribute("data-scores").split(" ")[chosen()];
    return s === undefined || s === "" ? null : parseFloat(s);
  }

  function itemStatus(item) {
    return item.getAttribute("data-statuses").split(" ")[chosen()];
  }

  function line(item) { return parseInt(item.getAttribute("data-line"), 10); }

  function compare(a, b) {
    if (sort.value === "line") { return line(a) - line(b); }
    var sa = score(a), sb = score(b);
    if (sa === null || sb === null) {
      return (sa === null) - (sb === null) || line(a) - line(b);
    }
    var d = sort.value === "score-asc" ? sa - sb : sb - sa;
    return d || line(a) - line(b);
  }

  function apply() {
    var lo = parseFloat(low.value), hi = parseFloat(high.value);
    lo = isNaN(lo) ? 0 : lo;
    hi = isNaN(hi) ? top : hi;
    var fullRange = lo <= 0 && hi >= top;
    var visible = 0;
    items.slice().sort(compare).forEach(function (item) {
      var s = score(item);
      var ok = (status.value === "all" || itemStatus(item) === status.value) &&
        (s === null ? fullRange : s >= lo - 1e-9 && s <= hi + 1e-9);
      item.hidden = !ok;
      if (ok) { visible += 1; }
      list.appendChild(item);
    });
    shown.textContent = "showing " + visible + " of " + items.length + " items";
    var state = (scorer ? "scorer=" + scorer.value + "&" : "") +
      "sort=" + sort.value + "&status=" + status.value + "&min=" + lo + "&max=" + hi;
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "#" + state);
    }
  }

  function restore() {
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var kv = pair.split("=");
      var control = { scorer: scorer, sort: sort, status: status, min: low, max: high }[kv[0]];
      if (!control || kv.length !== 2) { return; }
      var value = decodeURIComponent(kv[1]);
      var known = control.tagName !== "SELECT" ||
        Array.prototype.some.call(control.options, function (o) { return o.value === value; });
      if (known) { control.value = value; }
    });
  }

  [scorer, sort, status, low, high].filter(Boolean).forEach(function (control) {
    control.addEventListener("input", apply);
    control.addEventListener("change", apply);
  });
  restore();
  apply();
  document.documentElement.setAttribute("data-ready", "true");
})();
