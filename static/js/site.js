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
  // <select data-autosubmit>: choosing an option shows it at once.
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select.matches && select.matches("select[data-autosubmit]")) select.form.submit();
  });
})();
