// The staff pages a phone may need to open again without the network: My pods, a pod's page,
// a table's result form and the pod's score cards (what the staff member opened, or what those
// pages link to with data-offline). Network first, so a page is never older than it must be;
// the copy kept from the last visit only when the network fails. Served from /sw.js (the
// site's root scope) by tournaments/views/offline.py; browsers run it only in a secure context
// (HTTPS, or localhost). Writes never pass through here: static/js/queue.js queues them.
"use strict";
var CACHE = "bunco-staff-pages-1";
var STAFF_PAGE = /^\/t\/[^/]+\/pods\/(\d+\/((round\/\d+\/table\/\d+\/)|(cards\/(\d+\/)?))?)?$/;

function kept(url) {
  return url.origin === self.location.origin &&
    (STAFF_PAGE.test(url.pathname) || url.pathname.indexOf("/static/") === 0);
}

function fetchAndKeep(request) {
  return fetch(request).then(function (response) {
    // A redirect (to sign in, say) or an error page is never what to show offline.
    if (response.ok && !response.redirected && response.type === "basic") {
      var copy = response.clone();
      caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
    }
    return response;
  });
}

function offline() {
  return new Response(
    "<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport " +
    "content='width=device-width, initial-scale=1'><title>Offline</title><p>This phone is " +
    "offline and this page was not kept on it. Go back to your pod's page: what you record " +
    "there is kept on the phone and sent when the network returns.</p></html>",
    { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } }
  );
}

self.addEventListener("install", function () { self.skipWaiting(); });

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name !== CACHE; })
      .map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET" || !kept(new URL(request.url))) return;
  event.respondWith(fetchAndKeep(request).catch(function () {
    return caches.match(request, { ignoreVary: true }).then(function (hit) {
      return hit || (request.mode === "navigate" ? offline() : Response.error());
    });
  }));
});

// A staff page lists itself, its scripts and styles, and the forms it links to.
self.addEventListener("message", function (event) {
  var urls = (event.data && event.data.keep) || [];
  event.waitUntil(Promise.all(urls.map(function (address) {
    var url = new URL(address, self.location.origin);
    if (!kept(url)) return null;
    return fetchAndKeep(new Request(url.href, { credentials: "same-origin" })).catch(function () {});
  })));
});
