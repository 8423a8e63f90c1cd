// Behaviour every page may use, declared with data- attributes: the content security policy
// forbids inline scripts and on*="" handlers, so pages say what they want and this does it.
(function () {
  document.addEventListener("submit", function (event) {
    var form = event.target;
    // <form data-confirm="Delete this?">: ask first.
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    // <form data-search-on-submit="#box">: Enter searches through htmx, without a reload.
    var box = form.dataset.searchOnSubmit;
    if (box && window.htmx) {
      event.preventDefault();
      window.htmx.trigger(box, "search");
    }
  });
  // htmx sends the CSRF token from the cookie, not the one the page was rendered with: after
  // signing in again in another tab (which renews it) a tap on this page still saves.
  document.addEventListener("htmx:configRequest", function (event) {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (!match) return;
    var token = decodeURIComponent(match[1]);
    event.detail.headers["X-CSRFToken"] = token;
    // A form's own hidden token is what Django reads first.
    if (event.detail.parameters.csrfmiddlewaretoken) {
      event.detail.parameters.csrfmiddlewaretoken = token;
    }
  });
  // <select data-autosubmit>: choosing an option shows it at once.
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select.matches && select.matches("select[data-autosubmit]")) select.form.submit();
  });
})();
