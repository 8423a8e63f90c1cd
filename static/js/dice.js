// Typing a die moves on to the next box (then the re-throws or the submit button), so a
// round of dice is typed in one go.
document.addEventListener("input", function (e) {
  var box = e.target;
  if (!box.classList || !box.classList.contains("die-box") || !/^[1-6]$/.test(box.value)) return;
  var boxes = Array.prototype.slice.call(
    box.form.querySelectorAll("input.die-box, input[name=rethrows], button[type=submit]")
  );
  var next = boxes[boxes.indexOf(box) + 1];
  if (next) next.focus();
});
