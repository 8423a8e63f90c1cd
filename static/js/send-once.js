// A double tap on a slow venue network must not send a form twice (a result sent twice would
// come back as a conflict with oneself). Forms marked data-queue have their own guard (queue.js).
document.querySelectorAll("form[method=post]:not([data-queue])").forEach(function (form) {
  form.addEventListener("submit", function (event) {
    if (form.dataset.sent) { event.preventDefault(); return; }
    form.dataset.sent = "1";
  });
});
window.addEventListener("pageshow", function () {
  document.querySelectorAll("form[data-sent]").forEach(function (form) { delete form.dataset.sent; });
});
