// A name too long for its cell shrinks (to 78%) before the ellipsis cuts it.
// A board with more pods than fit one screen turns its pages by the clock, every
// data-page-seconds, the page chosen as the server chooses it (scoring/views/board.py
// `paged`), so every projector on the same clock shows the same page; the live part is only
// fetched again when the room changes (live.js), so turning pages is this script's job.
(function () {
  function fit() {
    document.querySelectorAll("#board-live .board-grid:not([hidden]) .nm").forEach(function (el) {
      el.style.fontSize = "";
      for (var size = 96; el.scrollWidth > el.clientWidth + 1 && size >= 78; size -= 3) {
        el.style.fontSize = size + "%";
      }
    });
  }
  function turn() {
    var live = document.getElementById("board-live");
    if (!live) return;
    var grids = live.querySelectorAll(".board-grid[data-page]");
    if (grids.length < 2) return;
    var seconds = Number(live.dataset.pageSeconds) || 10;
    var showing = Math.floor(Date.now() / 1000 / seconds) % grids.length;
    var grid = grids[showing];
    if (!grid.hidden) return;
    grids.forEach(function (g, i) {
      g.hidden = i !== showing;
    });
    var pager = document.getElementById("board-pager");
    if (pager) {
      pager.textContent =
        "Pods " + grid.dataset.first + "–" + grid.dataset.last + " · page " + (showing + 1) +
        " of " + grids.length + " · next page in " + seconds + " s";
    }
    fit();
  }
  function start() {
    turn();
    fit();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  document.addEventListener("htmx:afterSettle", start);
  window.addEventListener("resize", fit);
  setInterval(turn, 1000);
})();
