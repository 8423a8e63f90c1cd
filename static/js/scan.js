// The desk scans the QR code of a player's own page with the phone's camera, using the
// browser's own BarcodeDetector; where there is none the button stays hidden and the desk
// types the code. The code read goes into the search box, which searches as usual.
(function () {
  var box = document.getElementById("qr-scan");
  if (!box || !("BarcodeDetector" in window) || !navigator.mediaDevices) return;
  var input = document.querySelector(box.getAttribute("data-scan-target"));
  var start = document.getElementById("qr-scan-start");
  var stop = document.getElementById("qr-scan-stop");
  var video = document.getElementById("qr-scan-video");
  var status = document.getElementById("qr-scan-status");
  var detector = new window.BarcodeDetector({ formats: ["qr_code"] });
  var stream = null;
  var timer = null;
  box.hidden = false;

  function codeFrom(text) {
    var match = /\/me\/([A-Za-z0-9]+)\//.exec(text);
    if (match) return match[1].toUpperCase();
    text = text.trim();
    return /^[A-Za-z0-9]{4,12}$/.test(text) ? text.toUpperCase() : "";
  }

  function finish() {
    if (timer) clearInterval(timer);
    timer = null;
    if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
    stream = null;
    video.hidden = true;
    stop.hidden = true;
    start.hidden = false;
  }

  function look() {
    detector.detect(video).then(function (found) {
      for (var i = 0; i < found.length; i++) {
        var code = codeFrom(found[i].rawValue || "");
        if (code) {
          finish();
          status.textContent = "Read code " + code + ".";
          input.value = code;
          input.dispatchEvent(new Event("search", { bubbles: true }));
          return;
        }
      }
    }).catch(function () {});
  }

  start.addEventListener("click", function () {
    navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } })
      .then(function (s) {
        stream = s;
        video.srcObject = s;
        video.hidden = false;
        start.hidden = true;
        stop.hidden = false;
        status.textContent = "Point the camera at the QR code.";
        video.play().catch(function () {});
        timer = setInterval(look, 300);
      })
      .catch(function () {
        finish();
        status.textContent = "The camera is not available: type the code instead.";
      });
  });
  stop.addEventListener("click", function () {
    finish();
    status.textContent = "";
  });
})();
