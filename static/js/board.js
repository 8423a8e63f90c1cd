// A name too long for its cell shrinks (to 78%) before the ellipsis cuts it.
(function () {
  function fit() {
    document.querySelectorAll("#board-live .nm").forEach(function (el) {
      el.style.fontSize = "";
      for (var size = 96; el.scrollWidth > el.clientWidth + 1 && size >= 78; size -= 3) {
        el.style.fontSize = size + "%";
      }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fit);
  } else {
    fit();
  }
  document.addEventListener("htmx:afterSettle", fit);
  window.addEventListener("resize", fit);
})();
