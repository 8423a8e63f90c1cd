// Staff phones keep recording through a Wi-Fi drop-out. A form marked data-queue is never sent
// by the browser: its fields go into IndexedDB first (one database per signed-in account, so
// nothing is sent for another account), then the queue sends them one at a time, in order,
// with `X-Bunco-Queue: 1`; the server answers JSON (docs/offline.md). Saved and duplicate
// entries leave the queue; a conflict or an invalid entry stays, shown with the server's
// message and a link to resolve it, until a later save settles it or the staff member discards
// it. No answer, a 5xx, a page instead of JSON or a refusal for the account (signed out) keep
// the entry waiting, and the line behind it: tried again with back-off, on the `online` event,
// and on every staff page opened later (the database outlives the tab and the browser).
// Signing out deletes the queue, asking first when something is still unsent. Where the page
// is a secure context it also registers the service worker (static/sw.js), which keeps the
// staff pages openable offline, once site.js has deleted pages another account left
// (`buncoPagesOwned`); IndexedDB alone works on plain HTTP too.
(function () {
  "use strict";
  var banner = document.getElementById("queue-banner");
  if (!banner || !window.indexedDB) return;
  var user = banner.dataset.userId;
  var DB_NAME = "bunco-queue-" + user;
  var TAB = Math.random().toString(36).slice(2);
  var HELD = { conflict: 1, invalid: 1 };
  // Not for this entry alone: signed out, a stale token. It waits, and the line waits for it.
  var PAUSED = { network: 1, "signed-out": 1, forbidden: 1, unanswered: 1 };
  var NOUNS = { result: ["result", "results"], card: ["card", "cards"],
                confirmation: ["card confirmation", "card confirmations"] };
  var backoff = 0;
  var timer = null;
  var pumping = false;
  var signedOut = false;
  var foreground = null; // the entry this page just queued, while it is being sent

  // --- IndexedDB, in promises ---------------------------------------------------------------
  var dbPromise = null;
  function db() {
    if (!dbPromise) {
      dbPromise = new Promise(function (resolve, reject) {
        var open = indexedDB.open(DB_NAME, 1);
        open.onupgradeneeded = function () {
          open.result.createObjectStore("entries", { keyPath: "id", autoIncrement: true });
          open.result.createObjectStore("meta", { keyPath: "name" });
        };
        open.onsuccess = function () { resolve(open.result); };
        open.onerror = function () { reject(open.error); };
      });
    }
    return dbPromise;
  }
  function tx(stores, mode, work) {
    return db().then(function (d) {
      return new Promise(function (resolve, reject) {
        var t = d.transaction(stores, mode);
        var result;
        t.oncomplete = function () { resolve(result); };
        t.onerror = t.onabort = function () { reject(t.error); };
        work(t, function (value) { result = value; });
      });
    });
  }
  function entries() {
    return tx(["entries"], "readonly", function (t, done) {
      var req = t.objectStore("entries").getAll();
      req.onsuccess = function () { done(req.result); };
    });
  }
  function put(entry) {
    return tx(["entries"], "readwrite", function (t, done) {
      var req = t.objectStore("entries").put(entry);
      req.onsuccess = function () { done(req.result); };
    });
  }
  function remove(id) {
    return tx(["entries"], "readwrite", function (t) { t.objectStore("entries").delete(id); });
  }
  // One sender at a time across this account's tabs: a lease in the database (IndexedDB
  // transactions are atomic, and navigator.locks exists only in secure contexts). A lease left
  // by a tab that is gone (closed mid-send, the browser restarted, a reload) would hold the line
  // until it ran out, so a tab that finds another's lease asks on a BroadcastChannel whether
  // its holder is still there, and takes it over when nobody answers.
  var channel = window.BroadcastChannel ? new BroadcastChannel(DB_NAME) : null;
  if (channel) {
    channel.addEventListener("message", function (event) {
      if (event.data && event.data.ask === TAB) channel.postMessage({ here: TAB });
    });
  }
  function stillThere(tab) {
    if (!channel) return Promise.resolve(true);
    return new Promise(function (resolve) {
      var answered = function (event) {
        if (!event.data || event.data.here !== tab) return;
        clearTimeout(silence);
        channel.removeEventListener("message", answered);
        resolve(true);
      };
      var silence = setTimeout(function () {
        channel.removeEventListener("message", answered);
        resolve(false);
      }, 500);
      channel.addEventListener("message", answered);
      channel.postMessage({ ask: tab });
    });
  }
  function holdLease(take, gone) { // `gone`: a tab found not to be there, whose lease is free
    return tx(["meta"], "readwrite", function (t, done) {
      var store = t.objectStore("meta");
      var req = store.get("sender");
      req.onsuccess = function () {
        var held = req.result;
        var mine = !held || held.tab === TAB || held.tab === gone || held.until < Date.now();
        if (take && mine) store.put({ name: "sender", tab: TAB, until: Date.now() + 20000 });
        if (!take && held && held.tab === TAB) store.delete("sender");
        done(mine ? true : held.tab);
      };
    });
  }
  function lease(take) {
    return holdLease(take).then(function (holder) {
      if (holder === true || !take) return holder === true;
      return stillThere(holder).then(function (there) {
        return there ? false : holdLease(true, holder).then(function (mine) { return mine === true; });
      });
    });
  }
  window.addEventListener("pagehide", function () { lease(false); });

  // --- keys and fields ----------------------------------------------------------------------
  function uuid4() { // crypto.randomUUID needs a secure context; getRandomValues does not
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64;
    b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); });
    return h.slice(0, 4).join("") + "-" + h.slice(4, 6).join("") + "-" + h.slice(6, 8).join("") +
      "-" + h.slice(8, 10).join("") + "-" + h.slice(10).join("");
  }
  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  function field(entry, name) {
    var pair = entry.fields.filter(function (f) { return f[0] === name; })[0];
    return pair ? pair[1] : undefined;
  }
  function setField(entry, name, value) {
    var pair = entry.fields.filter(function (f) { return f[0] === name; })[0];
    if (pair) pair[1] = value; else entry.fields.push([name, value]);
  }
  function sameTyping(a, b) { // a second tap on the same thing, not a new entry
    var skip = { idempotency_key: 1, csrfmiddlewaretoken: 1 };
    var pick = function (e) {
      return JSON.stringify(e.fields.filter(function (f) { return !skip[f[0]]; }));
    };
    return a.url === b.url && pick(a) === pick(b);
  }

  // --- queueing a form ----------------------------------------------------------------------
  function formFields(form, submitter) {
    var data;
    try { data = new FormData(form, submitter || undefined); } catch (e) {
      data = new FormData(form);
      if (submitter && submitter.name) data.append(submitter.name, submitter.value);
    }
    var fields = [];
    data.forEach(function (value, name) { if (typeof value === "string") fields.push([name, value]); });
    return fields;
  }
  function actionOf(form) { // the card forms have a field named "action", which hides the property
    return new URL(form.getAttribute("action") || window.location.href, window.location.href).href;
  }
  function queueForm(form, submitter) {
    var entry = {
      user: user, url: actionOf(form), fields: formFields(form, submitter),
      kind: form.dataset.queue || "result", label: form.dataset.queueLabel || "",
      says: submitter && submitter.dataset.says || "", // what the tap chose, in words
      done: form.dataset.queueDone || "", state: "waiting", created: Date.now(),
    };
    return entries().then(function (all) {
      var used = {};
      all.forEach(function (e) { used[field(e, "idempotency_key")] = 1; });
      return tx(["meta"], "readonly", function (t, done) {
        var req = t.objectStore("meta").get("used");
        req.onsuccess = function () { done((req.result && req.result.keys) || []); };
      }).then(function (oldKeys) {
        oldKeys.forEach(function (k) { used[k] = 1; });
        var waiting = all.filter(function (e) { return e.state === "waiting" && e.url === entry.url; });
        var last = waiting[waiting.length - 1];
        if (last && sameTyping(last, entry) && Date.now() - last.created < 15000) return null;
        // A key is used once: a page opened again from the cache shows the key it was made
        // with, and a second entry under it would come back as the first one's duplicate.
        var key = field(entry, "idempotency_key");
        if (!key || used[key]) setField(entry, "idempotency_key", uuid4());
        if (last) entry.after = last.id; // built on an entry not sent yet: takes its version
        entry.alone = !all.some(function (e) { return e.state === "waiting"; });
        return put(entry).then(function (id) {
          entry.id = id;
          return rememberKey(field(entry, "idempotency_key"), oldKeys).then(function () { return entry; });
        });
      });
    }).then(function (queued) {
      var box = form.querySelector("[name=idempotency_key]");
      if (box) box.value = uuid4(); // the next save from this form is a new write
      return queued;
    });
  }
  function rememberKey(key, keys) {
    keys = keys.concat([key]).slice(-500);
    return tx(["meta"], "readwrite", function (t) { t.objectStore("meta").put({ name: "used", keys: keys }); });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (signedOut) return;
    if (form.matches("form[data-sign-out]")) return signOut(event, form);
    if (!form.matches("form[data-queue]") || event.defaultPrevented) return;
    event.preventDefault();
    clearErrors(form);
    queueForm(form, event.submitter).then(function (entry) {
      if (!entry) { formStatus(form, "Already waiting to send.", "waiting"); return; }
      foreground = entry.alone ? entry.id : null; // else it waits its turn behind others
      formStatus(form, "Waiting to send: " + (entry.says || entry.label), "waiting");
      backoff = 0;
      return render().then(pump);
    }).catch(function (error) {
      formStatus(form, "This phone could not store the entry (" + error + "): nothing was saved.", "held");
    });
  });

  // --- sending ------------------------------------------------------------------------------
  function send(entry, stillWaiting) {
    var body = new URLSearchParams();
    var token = csrfToken();
    entry.fields.forEach(function (f) {
      body.append(f[0], f[0] === "csrfmiddlewaretoken" && token ? token : f[1]);
    });
    return fetch(entry.url, {
      method: "POST", body: body, credentials: "same-origin", redirect: "manual", cache: "no-store",
      headers: { "X-Bunco-Queue": "1", "X-Bunco-Queued": String(stillWaiting),
                 "X-CSRFToken": token, "Accept": "application/json" },
    }).then(function (response) {
      if (response.type === "opaqueredirect") return { status: "signed-out", message: "Sign in again." };
      if (response.status >= 500) return { status: "network" };
      var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
      if (!json) { // a page instead of an answer: not stored, so sent again later
        return { status: "unanswered", message: "The server answered with a page (HTTP " +
                 response.status + "), not the answer the phone waits for; it tries again." };
      }
      return response.json();
    }, function () { return { status: "network" }; });
  }
  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(pump, ms);
  }
  function pump() {
    if (pumping || signedOut) return Promise.resolve();
    pumping = true;
    var finish = function () { pumping = false; return render(); };
    return lease(true).then(function (mine) {
      if (!mine) { schedule(5000); return; }
      return step();
    }).then(finish, function () { schedule(5000); return finish(); });
  }
  function step() {
    return entries().then(function (all) {
      var waiting = all.filter(function (e) { return e.state === "waiting"; });
      if (!waiting.length) { backoff = 0; return lease(false); }
      var entry = waiting[0];
      var pending = { status: "sending", entry: entry };
      paint(pending);
      return lease(true).then(function () { return send(entry, waiting.length - 1); }).then(function (answer) {
        if (PAUSED[answer.status]) {
          entry.note = answer.status === "network" ? "" : answer.message || "Sign in again.";
          foreground = null; // sent later, in the background: no page change then
          backoff = Math.min(backoff ? backoff * 2 : 2000, 60000);
          schedule(backoff + Math.random() * 1000);
          return put(entry).then(function () { return lease(false); });
        }
        backoff = 0;
        return settle(entry, answer).then(step);
      });
    });
  }
  function settle(entry, answer) {
    var wasForeground = foreground === entry.id;
    if (answer.status === "saved" || answer.status === "duplicate") {
      return entries().then(function (all) { return saved(entry, answer, all, wasForeground); });
    }
    entry.state = HELD[answer.status] ? answer.status : "invalid";
    entry.message = answer.message || "The server did not store it.";
    entry.errors = answer.errors || {};
    entry.version = answer.version;
    if (wasForeground) {
      foreground = null;
      formsFor(entry.url).forEach(function (form) { showErrors(form, entry); });
    }
    return put(entry);
  }
  function saved(entry, answer, all, wasForeground) { // `all` read after the answer came
    var work = [remove(entry.id)];
    all.forEach(function (other) {
      // The next correction typed on top of this one builds on the version it made.
      if (other.after === entry.id && other.state === "waiting" && answer.version != null) {
        setField(other, "base_version", String(answer.version));
        delete other.after;
        work.push(put(other));
      }
      // A problem shown earlier for the same table or card is settled by this later save.
      if (HELD[other.state] && other.url === entry.url && other.id < entry.id) work.push(remove(other.id));
    });
    return Promise.all(work).then(function () {
      formsFor(entry.url).forEach(function (form) {
        var base = form.querySelector("[name=base_version]");
        if (base && answer.version != null) base.value = answer.version;
        formStatus(form, "Sent: " + (answer.message || "saved") , "sent");
      });
      // The page the form itself would have gone to: the next card to type in, say.
      var next = typeof answer.next === "string" && answer.next.charAt(0) === "/" &&
        answer.next.charAt(1) !== "/" ? answer.next : entry.done;
      if (wasForeground && next) {
        foreground = null;
        sessionStorage.setItem("bunco-queue-flash", answer.message || "");
        window.location.assign(next);
      }
    });
  }

  // --- what the staff member sees -----------------------------------------------------------
  function formsFor(url) {
    return Array.prototype.filter.call(document.querySelectorAll("form[data-queue]"),
      function (form) { return actionOf(form) === url; });
  }
  function formStatus(form, text, state) {
    var box = form.querySelector(".queue-status");
    if (!box) {
      box = document.createElement("div");
      box.className = "queue-status";
      box.setAttribute("role", "status");
      form.appendChild(box);
    }
    box.textContent = text;
    box.dataset.state = state;
  }
  function clearErrors(form) {
    form.querySelectorAll(".queue-error").forEach(function (node) { node.remove(); });
  }
  function showErrors(form, entry) {
    clearErrors(form);
    Object.keys(entry.errors || {}).forEach(function (name) {
      var box = form.querySelector("[name='" + name + "']");
      if (!box || name === "__all__") return;
      var note = document.createElement("div");
      note.className = "queue-error text-danger small";
      note.textContent = entry.errors[name].join(" ");
      box.insertAdjacentElement("afterend", note);
    });
    formStatus(form, "Not saved. " + entry.message, "held");
  }
  function counted(list) {
    var by = {};
    list.forEach(function (e) { by[e.kind] = (by[e.kind] || 0) + 1; });
    return Object.keys(by).map(function (kind) {
      var noun = NOUNS[kind] || [kind, kind + "s"];
      return by[kind] + " " + noun[by[kind] === 1 ? 0 : 1];
    }).join(" and ");
  }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }
  var painted = "";
  function paint(state) {
    var all = state.all || paint.last || [];
    paint.last = all;
    var waiting = all.filter(function (e) { return e.state === "waiting"; });
    var held = all.filter(function (e) { return HELD[e.state]; });
    var key = JSON.stringify([all.map(function (e) { return [e.id, e.state, e.note]; }), navigator.onLine, state.status]);
    if (key === painted) return;
    painted = key;
    banner.replaceChildren();
    banner.dataset.waiting = waiting.length;
    banner.dataset.held = held.length;
    if (waiting.length) {
      var line = counted(waiting) + " waiting to send";
      if (!navigator.onLine) line += ": this phone is offline; they are sent when the network returns.";
      else if (waiting[0].note) line += ". " + waiting[0].note + " They are sent once the server accepts them.";
      else line += state.status === "sending" ? " · sending…" : " · trying again shortly.";
      banner.appendChild(el("p", "queue-count mb-1", line));
      if (waiting[0].note) banner.appendChild(discard(waiting[0])); // refused for good, maybe
    }
    held.forEach(function (entry) {
      var item = el("div", "queue-held");
      item.dataset.entry = entry.id;
      item.appendChild(el("strong", "", (entry.label || "An entry") + (entry.state === "conflict" ? ": conflict. " : ": not saved. ")));
      item.appendChild(el("span", "", entry.message + " "));
      if (entry.says) item.appendChild(el("span", "text-muted", "You entered: " + entry.says + ". "));
      if (entry.url === new URL(window.location.pathname + window.location.search, window.location.href).href) {
        item.appendChild(el("span", "", "Its form is on this page.")); // no link to itself
      } else {
        var open = el("a", "", "Open it to resolve");
        open.href = entry.url;
        item.appendChild(open);
      }
      item.appendChild(discard(entry));
      banner.appendChild(item);
    });
  }
  function discard(entry) {
    var drop = el("button", "btn btn-sm btn-outline-secondary ms-2 queue-discard", "Discard");
    drop.type = "button";
    drop.addEventListener("click", function () {
      var what = (entry.label || "this entry") + (entry.says ? " (" + entry.says + ")" : "");
      if (window.confirm("Discard " + what + "? It was not saved on the server.")) remove(entry.id).then(render);
    });
    return drop;
  }
  function render() {
    return entries().then(function (all) {
      paint({ all: all });
      heartbeat(all.filter(function (e) { return e.state === "waiting"; }).length);
    });
  }
  // The organiser's stage page shows each pod's phones: their last sync, and what waits on
  // them (docs/offline.md). Told when this staff page opens, reconnects or the count changes.
  var told = null;
  function heartbeat(count) {
    var slug = window.location.pathname.match(/^\/t\/([^/]+)\//);
    if (!slug || !navigator.onLine || signedOut) return;
    if (!count && !document.querySelector("form[data-queue]")) return;
    if (told === slug[1] + ":" + count) return;
    told = slug[1] + ":" + count;
    fetch("/t/" + slug[1] + "/staff/sync/", {
      method: "POST", body: new URLSearchParams({ csrfmiddlewaretoken: csrfToken() }),
      credentials: "same-origin", redirect: "manual", cache: "no-store",
      headers: { "X-Bunco-Queue": "1", "X-Bunco-Queued": String(count), "X-CSRFToken": csrfToken() },
    }).catch(function () { told = null; });
  }

  function flash() {
    var text = sessionStorage.getItem("bunco-queue-flash");
    sessionStorage.removeItem("bunco-queue-flash");
    if (!text) return;
    var shown = Array.prototype.some.call(document.querySelectorAll("main .alert"),
      function (alert) { return alert.textContent.indexOf(text) >= 0; });
    if (shown) return;
    var alert = el("div", "alert alert-success", text);
    alert.setAttribute("role", "alert");
    banner.insertAdjacentElement("afterend", alert);
  }

  // --- signing out --------------------------------------------------------------------------
  function signOut(event, form) {
    event.preventDefault();
    entries().then(function (all) {
      if (all.length && !window.confirm(counted(all) + " on this phone " +
          (all.length === 1 ? "has" : "have") + " not been saved on the server. Signing out " +
          "deletes " + (all.length === 1 ? "it" : "them") + ". Sign out anyway?")) return;
      signedOut = true;
      clearTimeout(timer);
      var forget = [db().then(function (d) { d.close(); }).then(function () {
        return new Promise(function (resolve) {
          var req = indexedDB.deleteDatabase(DB_NAME);
          req.onsuccess = req.onerror = req.onblocked = function () { resolve(); };
        });
      })];
      if (window.buncoDropKeptPages) forget.push(window.buncoDropKeptPages());
      return Promise.all(forget).then(function () { form.submit(); });
    });
  }

  // --- the service worker (secure contexts only) --------------------------------------------
  function offlinePages() {
    var sw = banner.dataset.serviceWorker;
    if (!window.isSecureContext || !("serviceWorker" in navigator) || !sw) return;
    navigator.serviceWorker.register(sw).then(function () { return navigator.serviceWorker.ready; })
      .then(function (registration) {
        // This page, what it loads, and the forms it links to: opened offline later.
        var urls = [window.location.href];
        document.querySelectorAll("script[src], link[rel=stylesheet]").forEach(function (node) {
          urls.push(node.src || node.href);
        });
        document.querySelectorAll("a[data-offline]").forEach(function (link) { urls.push(link.href); });
        if (registration.active) registration.active.postMessage({ keep: urls });
      }).catch(function () {});
  }

  window.addEventListener("online", function () { backoff = 0; told = null; render().then(pump); });
  window.addEventListener("offline", render);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) pump(); });
  flash();
  render().then(pump);
  (window.buncoPagesOwned || Promise.resolve()).then(offlinePages);
})();
