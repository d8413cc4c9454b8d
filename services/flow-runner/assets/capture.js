// Camera capture for the document step: an enhancement of the plain file form, which keeps working
// without this script or when the camera is refused. The rear camera fills a card-shaped guide; live
// hints come from the frame's brightness, sharpness and glare; the photo is downscaled to about
// 1600 px on the long side and uploaded as JPEG with a progress bar.
(function () {
  'use strict';
  var field = document.querySelector('[data-capture]');
  if (!field || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.FormData) return;
  var form = field.closest('form');
  // Not `form.action`: the form's submit button is named "action" and would shadow it.
  var target = form.getAttribute('action');
  var input = field.querySelector('input[type=file]');
  var text = field.dataset;
  var LONG_SIDE = 1600;

  function element(tag, className, content) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (content) node.textContent = content;
    return node;
  }

  var camera = element('div', 'camera');
  var video = element('video');
  video.setAttribute('playsinline', '');
  video.setAttribute('muted', '');
  video.muted = true;
  var guide = element('div', 'card-guide');
  guide.setAttribute('aria-hidden', 'true');
  var hint = element('p', 'camera-hint', text.hintStart);
  hint.setAttribute('role', 'status');
  hint.setAttribute('aria-live', 'polite');
  var shoot = element('button', 'primary', text.shoot);
  shoot.type = 'button';
  shoot.disabled = true;
  var progress = element('progress', 'upload-progress');
  progress.max = 100;
  progress.value = 0;
  progress.hidden = true;
  progress.setAttribute('aria-label', text.uploading);
  camera.appendChild(video);
  camera.appendChild(guide);

  navigator.mediaDevices
    .getUserMedia({
      video: { facingMode: { ideal: 'environment' }, width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    })
    .then(function (stream) {
      video.srcObject = stream;
      return video.play();
    })
    .then(function () {
      field.insertBefore(camera, field.firstChild);
      field.appendChild(hint);
      field.appendChild(shoot);
      field.appendChild(progress);
      field.classList.add('with-camera');
      input.required = false;
      shoot.disabled = false;
      watch();
    })
    .catch(function () {
      // Refused or no camera: the file input stays, as without JavaScript.
    });

  var probe = document.createElement('canvas');
  probe.width = 160;
  probe.height = 90;
  function watch() {
    if (!video.videoWidth) return setTimeout(watch, 300);
    var context = probe.getContext('2d', { willReadFrequently: true });
    context.drawImage(video, 0, 0, probe.width, probe.height);
    var pixels = context.getImageData(0, 0, probe.width, probe.height).data;
    var grey = new Float32Array(probe.width * probe.height);
    var sum = 0;
    var saturated = 0;
    for (var i = 0; i < grey.length; i++) {
      var value = 0.299 * pixels[i * 4] + 0.587 * pixels[i * 4 + 1] + 0.114 * pixels[i * 4 + 2];
      grey[i] = value;
      sum += value;
      if (value > 245) saturated++;
    }
    var mean = sum / grey.length;
    var laplacian = 0;
    for (var y = 1; y < probe.height - 1; y++) {
      for (var x = 1; x < probe.width - 1; x++) {
        var at = y * probe.width + x;
        var l = 4 * grey[at] - grey[at - 1] - grey[at + 1] - grey[at - probe.width] - grey[at + probe.width];
        laplacian += l * l;
      }
    }
    laplacian /= (probe.width - 2) * (probe.height - 2);
    if (mean < 50) hint.textContent = text.hintDark;
    else if (saturated / grey.length > 0.04) hint.textContent = text.hintGlare;
    else if (laplacian < 60) hint.textContent = text.hintFocus;
    else if (laplacian < 150) hint.textContent = text.hintCloser;
    else hint.textContent = text.hintReady;
    setTimeout(watch, 400);
  }

  shoot.addEventListener('click', function () {
    var width = video.videoWidth;
    var height = video.videoHeight;
    if (!width || !height) return;
    var scale = Math.min(1, LONG_SIDE / Math.max(width, height));
    var canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    var context = canvas.getContext('2d');
    // A cheap downscale aliases the card's fine print into the same periodic ripples a photo of a
    // screen shows: the recapture check would then refuse a genuine card.
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = 'high';
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    shoot.disabled = true;
    canvas.toBlob(
      function (blob) {
        if (blob) upload(blob);
      },
      'image/jpeg',
      0.9,
    );
  });

  function upload(blob) {
    var data = new FormData(form);
    data.delete('capture');
    data.append('capture', blob, 'capture.jpg');
    data.set('action', 'upload');
    var request = new XMLHttpRequest();
    request.open('POST', target);
    progress.hidden = false;
    hint.textContent = text.uploading;
    request.upload.addEventListener('progress', function (event) {
      if (event.lengthComputable) progress.value = Math.round((event.loaded / event.total) * 100);
    });
    request.addEventListener('load', function () {
      if (request.status >= 400) {
        // A page that says what to change (an unreadable file, too large): show it as it came.
        document.open();
        document.write(request.responseText);
        document.close();
        return;
      }
      // The server answered with the next page (after its redirect): go where it leads.
      window.location.assign(request.responseURL || target);
    });
    request.addEventListener('error', function () {
      progress.hidden = true;
      shoot.disabled = false;
      hint.textContent = text.uploadFailed;
    });
    request.send(data);
  }
})();
