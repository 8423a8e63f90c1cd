// A noisy room and venue Wi-Fi: say so when a tap did not reach the server.
(function () {
  function flash(text) {
    var box = document.getElementById("checkin-flash");
    var alert = document.createElement("div");
    alert.className = "alert alert-danger alert-dismissible py-2";
    alert.setAttribute("role", "alert");
    alert.textContent = text;
    var close = document.createElement("button");
    close.type = "button";
    close.className = "btn-close";
    close.setAttribute("data-bs-dismiss", "alert");
    close.setAttribute("aria-label", "Close");
    alert.appendChild(close);
    box.replaceChildren(alert);
  }
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr.status;
    flash(status === 404
      ? "That player is not registered for this tournament. Search again."
      : "Something went wrong (" + status + "). Reload the page and try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    flash("Could not reach the server. Check the Wi-Fi and try again.");
  });
})();
