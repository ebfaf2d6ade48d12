(function () {
  "use strict";
  var list = document.getElementById("items");
  if (!list) { return; }
  // The first page's items are in the HTML itself (readable with scripts off); each other
  // item's markup waits, inert, in a <script type="text/html">. Only the page shown is made
  // into elements, so a run of 100,000 rows opens as quickly as one of ten.
  var PAGE = parseInt(list.getAttribute("data-page"), 10) || 100;
  var sources = document.querySelectorAll("#items > article.item, script.item-source");
  var rows = Array.prototype.map.call(sources, function (source) {
    var inline = source.tagName !== "SCRIPT";
    var id = source.getAttribute("data-id");
    return {
      source: source,
      html: inline ? source.outerHTML : null,
      line: parseInt(source.getAttribute("data-line"), 10),
      id: id,
      scores: source.getAttribute("data-scores").split(" "),
      statuses: source.getAttribute("data-statuses").split(" "),
      scorers: source.getAttribute("data-result-scorers").split(" "),
      text: inline ? (id + " " + source.textContent).toLowerCase() : null
    };
  });
  document.getElementById("controls").hidden = false;
  var scorer = document.getElementById("scorer");
  var sort = document.getElementById("sort");
  var status = document.getElementById("status");
  var low = document.getElementById("min");
  var high = document.getElementById("max");
  var shown = document.getElementById("shown");
  var search = document.getElementById("search");
  var csv = document.getElementById("csv");
  var pager = document.getElementById("pager");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var pageOf = document.getElementById("page-of");
  var top = parseFloat(high.max);
  var matching = rows;
  var page = 0;

  var ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&#34;": "\"", "&#39;": "'", "&quot;": "\"" };

  // What search looks in: the id and every text of the item, read off its markup when first
  // searched (not at load: most views never search).
  function text(row) {
    if (row.text === null) {
      var plain = row.source.textContent.replace(/<[^>]*>/g, "")
        .replace(/&(amp|lt|gt|quot|#34|#39);/g, function (e) { return ENTITIES[e]; });
      row.text = (row.id + " " + plain).toLowerCase();
    }
    return row.text;
  }

  function chosen() { return scorer ? parseInt(scorer.value, 10) : 0; }

  function score(row) {
    var s = row.scores[chosen()];
    return s === undefined || s === "" ? null : parseFloat(s);
  }

  function rowStatus(row) { return row.statuses[chosen()]; }

  function compare(a, b) {
    if (sort.value === "line") { return a.line - b.line; }
    var sa = score(a), sb = score(b);
    if (sa === null || sb === null) {
      return (sa === null) - (sb === null) || a.line - b.line;
    }
    var d = sort.value === "score-asc" ? sa - sb : sb - sa;
    return d || a.line - b.line;
  }

  function bounds() {
    var lo = parseFloat(low.value), hi = parseFloat(high.value);
    return [isNaN(lo) ? 0 : lo, isNaN(hi) ? top : hi];
  }

  function filter() {
    var range = bounds(), lo = range[0], hi = range[1];
    var fullRange = lo <= 0 && hi >= top;
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    matching = rows.filter(function (row) {
      var s = score(row);
      if (status.value !== "all" && rowStatus(row) !== status.value) { return false; }
      if (s === null ? !fullRange : s < lo - 1e-9 || s > hi + 1e-9) { return false; }
      if (!words.length) { return true; }
      var t = text(row);
      return words.every(function (w) { return t.indexOf(w) !== -1; });
    });
    matching.sort(compare);
  }

  function pages() { return Math.max(1, Math.ceil(matching.length / PAGE)); }

  function render() {
    page = Math.min(Math.max(page, 0), pages() - 1);
    var first = page * PAGE;
    list.innerHTML = matching.slice(first, first + PAGE).map(function (row) {
      return row.html !== null ? row.html : row.source.textContent;
    }).join("");
    shown.textContent = "showing " + matching.length + " of " + rows.length + " items";
    pager.hidden = pages() < 2;
    pageOf.textContent = "items " + (matching.length ? first + 1 : 0) + "\u2013" +
      Math.min(first + PAGE, matching.length) + ", page " + (page + 1) + " of " + pages();
    prev.disabled = page === 0;
    next.disabled = page >= pages() - 1;
    var range = bounds();
    var state = (scorer ? "scorer=" + scorer.value + "&" : "") +
      "sort=" + sort.value + "&status=" + status.value + "&min=" + range[0] + "&max=" + range[1] +
      (search.value ? "&q=" + encodeURIComponent(search.value) : "") +
      (page ? "&page=" + (page + 1) : "");
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", "#" + state);
    }
  }

  function apply() {
    filter();
    page = 0;
    render();
  }

  function restore() {
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var kv = pair.split("=");
      if (kv.length !== 2) { return; }
      var value = decodeURIComponent(kv[1]);
      if (kv[0] === "page") { page = (parseInt(value, 10) || 1) - 1; return; }
      var control = {
        scorer: scorer, sort: sort, status: status, min: low, max: high, q: search
      }[kv[0]];
      if (!control) { return; }
      var known = control.tagName !== "SELECT" ||
        Array.prototype.some.call(control.options, function (o) { return o.value === value; });
      if (known) { control.value = value; }
    });
  }

  // A link to one item (#line-12): its page is shown, clearing the filters if they hide it.
  function reveal(line) {
    var at = matching.findIndex(function (row) { return row.line === line; });
    if (at === -1) {
      status.value = "all"; low.value = 0; high.value = top; search.value = "";
      filter();
      at = matching.findIndex(function (row) { return row.line === line; });
    }
    if (at === -1) { return; }
    page = Math.floor(at / PAGE);
    render();
    var item = document.getElementById("line-" + line);
    if (item) { item.scrollIntoView(); }
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[href^='#line-']") : null;
    if (!link) { return; }
    event.preventDefault();
    reveal(parseInt(link.getAttribute("href").slice(6), 10));
  });

  // A cell a spreadsheet would read as a formula (= + - @, tab, CR) is quoted as text, as
  // OWASP advises for CSV exports.
  function cell(value) {
    var text = value === null || value === undefined ? "" : String(value);
    if (/^[=+\-@\t\r]/.test(text)) { text = "'" + text; }
    return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  // The items that match, on every page, in the order shown: line, id, and each scorer's
  // score and status.
  function table() {
    var ids = list.getAttribute("data-scorers").split(" ").filter(Boolean);
    var out = [["line", "id"].concat(ids.reduce(function (all, id) {
      return all.concat([id + " score", id + " status"]);
    }, []))];
    matching.forEach(function (row) {
      var cells = [row.line, row.id];
      ids.forEach(function (id) {
        var at = row.scorers.indexOf(id);
        cells.push(at === -1 ? "" : row.scores[at], at === -1 ? "" : row.statuses[at]);
      });
      out.push(cells);
    });
    return out.map(function (r) { return r.map(cell).join(","); }).join("\r\n") + "\r\n";
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

  prev.addEventListener("click", function () { page -= 1; render(); list.scrollIntoView(); });
  next.addEventListener("click", function () { page += 1; render(); list.scrollIntoView(); });
  [scorer, sort, status, low, high, search].filter(Boolean).forEach(function (control) {
    control.addEventListener("input", apply);
    control.addEventListener("change", apply);
  });
  var target = /^#line-(\d+)$/.exec(location.hash);
  if (target) {
    filter();
    reveal(parseInt(target[1], 10));
  } else {
    restore();
    filter();
    render();
  }
  document.documentElement.setAttribute("data-ready", "true");
})();
