// Behaviour every page may use, declared with data- attributes: the content security policy
// forbids inline scripts and on*="" handlers, so pages say what they want and this does it.
(function () {
  // The pages the service worker keeps (static/sw.js, for queue.js) are one account's night:
  // names, seats, results. Signing out deletes them, but a session can also run out, or end
  // in another tab, and the phone be handed on. So the account that owns them is noted beside
  // them, and a page shown to another account or to nobody (the sign-in page an ended session
  // leads to) deletes them before queue.js keeps anything. Here, not in queue.js, because a
  // page with nobody signed in does not load queue.js. Without storage to note the owner in,
  // nothing is deleted: keeping pages each load only to delete them on the next would leave
  // nothing to open offline.
  // Every kept page gone; queue.js calls it too, on signing out.
  function dropKeptPages() {
    if (!window.caches) return Promise.resolve();
    return caches.keys().then(function (names) {
      return Promise.all(names.map(function (name) { return caches.delete(name); }));
    });
  }
  function forgetOthersPages(user) {
    var KEY = "bunco-kept-pages-owner";
    var owner;
    try { owner = window.localStorage.getItem(KEY) || ""; } catch (e) { return Promise.resolve(); }
    if (owner === user || !window.caches) return Promise.resolve();
    return dropKeptPages().then(function () {
      if (user) window.localStorage.setItem(KEY, user);
      else window.localStorage.removeItem(KEY);
    }).catch(function () {});
  }
  var banner = document.getElementById("queue-banner");
  window.buncoDropKeptPages = dropKeptPages;
  window.buncoPagesOwned = forgetOthersPages(banner ? banner.dataset.userId : "");

  // htmx would add its indicator rules as an inline <style>, which the policy blocks:
  // they are in site.css instead. (This runs before htmx starts, at DOMContentLoaded.)
  if (window.htmx) window.htmx.config.includeIndicatorStyles = false;
  // <div class="progress-bar" data-bar-width="45">: the policy forbids style="" in the
  // markup, but not setting a style from a script. On load and on each htmx swap.
  function barWidths(root) {
    root.querySelectorAll("[data-bar-width]").forEach(function (bar) {
      bar.style.width = bar.dataset.barWidth + "%";
    });
  }
  document.addEventListener("htmx:load", function (event) {
    barWidths(event.detail.elt);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      barWidths(document);
    });
  } else {
    barWidths(document);
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    // <form data-confirm="Delete this?">: ask first; "{choice}" names what its list has chosen.
    if (form.dataset.confirm) {
      var list = form.querySelector("select");
      var chosen = list && list.selectedIndex >= 0 ? list.options[list.selectedIndex].text : "";
      if (!window.confirm(form.dataset.confirm.replace("{choice}", chosen))) {
        event.preventDefault();
        return;
      }
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
