// The "copy" buttons of the page: shown only when this script runs (without it, the secret is selectable text).
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var target = document.getElementById(button.getAttribute('data-copy'));
  if (!target || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(target.value).then(function () {
      button.textContent = button.getAttribute('data-copied') || button.textContent;
    });
  });
});
