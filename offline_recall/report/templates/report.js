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
  var search = document.getElementById("search");
  var csv = document.getElementById("csv");
  // What search looks in: the id and every text of the item, read once.
  var texts = new Map(items.map(function (item) {
    return [item, (item.getAttribute("data-id") + " " + item.textContent).toLowerCase()];
  }));
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
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    items.slice().sort(compare).forEach(function (item) {
      var s = score(item);
      var text = texts.get(item);
      var ok = (status.value === "all" || itemStatus(item) === status.value) &&
        (s === null ? fullRange : s >= lo - 1e-9 && s <= hi + 1e-9) &&
        words.every(function (w) { return text.indexOf(w) !== -1; });
      item.hidden = !ok;
      if (ok) { visible += 1; }
      list.appendChild(item);
    });
    shown.textContent = "showing " + visible + " of " + items.length + " items";
    var state = (scorer ? "scorer=" + scorer.value + "&" : "") +
      "sort=" + sort.value + "&status=" + status.value + "&min=" + lo + "&max=" + hi +
      (search.value ? "&q=" + encodeURIComponent(search.value) : "");
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "#" + state);
    }
  }

  function restore() {
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var kv = pair.split("=");
      var control = {
        scorer: scorer, sort: sort, status: status, min: low, max: high, q: search
      }[kv[0]];
      if (!control || kv.length !== 2) { return; }
      var value = decodeURIComponent(kv[1]);
      var known = control.tagName !== "SELECT" ||
        Array.prototype.some.call(control.options, function (o) { return o.value === value; });
      if (known) { control.value = value; }
    });
  }

  function cell(value) {
    var text = value === null || value === undefined ? "" : String(value);
    return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  // The items shown, in the order shown: line, id, and each scorer's score and status.
  function table() {
    var ids = list.getAttribute("data-scorers").split(" ").filter(Boolean);
    var rows = [["line", "id"].concat(ids.reduce(function (all, id) {
      return all.concat([id + " score", id + " status"]);
    }, []))];
    Array.prototype.forEach.call(list.querySelectorAll("article.item"), function (item) {
      if (item.hidden) { return; }
      var mine = item.getAttribute("data-result-scorers").split(" ");
      var scores = item.getAttribute("data-scores").split(" ");
      var statuses = item.getAttribute("data-statuses").split(" ");
      var row = [item.getAttribute("data-line"), item.getAttribute("data-id")];
      ids.forEach(function (id) {
        var at = mine.indexOf(id);
        row.push(at === -1 ? "" : scores[at], at === -1 ? "" : statuses[at]);
      });
      rows.push(row);
    });
    return rows.map(function (r) { return r.map(cell).join(","); }).join("\r\n") + "\r\n";
  }

  csv.addEventListener("click", function () {
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([table()], { type: "text/csv" }));
    link.download = "items.csv";
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
  });
  list.setAttribute("data-csv-ready", "true");
  window.offlineRecallCsv = table;

  [scorer, sort, status, low, high, search].filter(Boolean).forEach(function (control) {
    control.addEventListener("input", apply);
    control.addEventListener("change", apply);
  });
  restore();
  apply();
  document.documentElement.setAttribute("data-ready", "true");
})();
