// Camera capture for the document step: an enhancement of the plain file form, which keeps working
// without this script or when the camera is refused. With a camera, the page has one action at a time:
// the rear camera's live view fills the width with a card-shaped guide over it and a single "take the
// photo" button; the shot is then shown to send or retake; the file picker becomes a secondary link.
// Live hints come from the frame's brightness, sharpness and glare inside the guide. The shutter waits for
// a sharp frame, as document scanners auto-capture: pressed on a blurred frame it keeps looking for up to
// 2.5 s, takes the first frame sharp enough to read, or else the sharpest one seen and says it may not read.
// The photo is downscaled to about 1600 px on the long side and uploaded as JPEG with a progress bar. A
// camera that cannot be used is explained (how to allow it when permission was refused) and the file
// picker is the way on. Every text comes from the page.
(function () {
  'use strict';
  var field = document.querySelector('[data-capture]');
  if (!field) return;
  var form = field.closest('form');
  // Not `form.action`: the form's submit button is named "action" and would shadow it.
  var target = form.getAttribute('action');
  var text = field.dataset;
  var fileBlock = field.querySelector('[data-capture-file]');
  var input = field.querySelector('input[type=file]');
  var submitBlock = form.querySelector('[data-capture-submit]');
  var LONG_SIDE = 1600;
  // Sharpness as the service measures a photo's blur (the variance of the Laplacian with the image's long
  // side brought to 800 px: packages/verification quality), here over the card guide and resampled by the
  // browser, which reads 7-15% above the service near the limit. 385 is the lowest limit that lets through
  // at most 5% of the corpus's front photos blurred past a 2 px Gaussian, past which a DNI's barcode stops
  // reading, measured by this code in Chromium (bench/documents/camera-measure.mjs, seeds 31 and 99, 720
  // photos: 3 of 77 let through, 29 of 643 sharper ones held; docs/documents.md "Sharp photos at capture").
  var MEASURE_SIDE = 800;
  var SHARP_ENOUGH = 385;
  var HOLD_MS = 2500;
  var HOLD_STEP_MS = 120;

  function element(tag, className, content) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (content) node.textContent = content;
    return node;
  }

  function button(label, className) {
    var node = element('button', className, label);
    node.type = 'button';
    return node;
  }

  /** Why the camera cannot be used, with the file picker (still on the page) as the way on. */
  function cameraUnavailable(error) {
    var name = error && error.name;
    var why = text.cameraFailed;
    if (name === 'NotAllowedError' || name === 'SecurityError') why = text.cameraDenied;
    else if (name === 'NotFoundError' || name === 'OverconstrainedError') why = text.cameraMissing;
    else if (name === 'NotReadableError' || name === 'AbortError') why = text.cameraBusy;
    var note = element('p', 'hint camera-unavailable', why + ' ' + (text.cameraWayOn || ''));
    note.setAttribute('role', 'status');
    field.insertBefore(note, field.firstChild);
  }

  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.FormData || !input) return;

  var camera = element('div', 'camera');
  var video = element('video');
  video.setAttribute('playsinline', '');
  video.setAttribute('muted', '');
  video.muted = true;
  var guide = element('div', 'card-guide');
  guide.setAttribute('aria-hidden', 'true');
  var shot = element('canvas', 'camera-shot');
  shot.setAttribute('role', 'img');
  shot.setAttribute('aria-label', text.shotLabel || '');
  shot.hidden = true;
  camera.appendChild(video);
  camera.appendChild(shot);
  camera.appendChild(guide);
  var hint = element('p', 'camera-hint', text.hintStart);
  hint.setAttribute('role', 'status');
  hint.setAttribute('aria-live', 'polite');
  var shoot = button(text.shoot, 'primary');
  shoot.disabled = true;
  var send = button(text.send, 'primary');
  var retake = button(text.retake, 'secondary');
  var review = element('div', 'actions');
  review.appendChild(send);
  review.appendChild(retake);
  review.hidden = true;
  var useFile = button(text.useFile, 'link');
  var progress = element('progress', 'upload-progress');
  progress.max = 100;
  progress.value = 0;
  progress.hidden = true;
  progress.setAttribute('aria-label', text.uploading);
  var stream = null;
  var taken = null;
  // While the shutter waits for a sharp frame, the live hints stop.
  var holding = false;

  navigator.mediaDevices
    .getUserMedia({
      video: { facingMode: { ideal: 'environment' }, width: { ideal: 1920 }, height: { ideal: 1080 } },
      audio: false,
    })
    .then(function (media) {
      stream = media;
      video.srcObject = media;
      return video.play();
    })
    .then(function () {
      // One action at a time: the live view and its button; the file picker behind a link.
      field.insertBefore(camera, field.firstChild);
      field.insertBefore(hint, camera.nextSibling);
      field.insertBefore(shoot, hint.nextSibling);
      field.insertBefore(review, shoot.nextSibling);
      field.insertBefore(progress, review.nextSibling);
      field.appendChild(useFile);
      field.classList.add('with-camera');
      if (fileBlock) fileBlock.hidden = true;
      if (submitBlock) submitBlock.hidden = true;
      input.required = false;
      shoot.disabled = false;
      watch();
    })
    .catch(cameraUnavailable);

  function stopCamera() {
    if (stream)
      stream.getTracks().forEach(function (track) {
        track.stop();
      });
    stream = null;
  }

  /** Back to the plain form: the file picker and its submit button, the camera gone. */
  useFile.addEventListener('click', function () {
    stopCamera();
    [camera, hint, shoot, review, progress, useFile].forEach(function (node) {
      if (node.parentNode) node.parentNode.removeChild(node);
    });
    field.classList.remove('with-camera');
    if (fileBlock) fileBlock.hidden = false;
    if (submitBlock) submitBlock.hidden = false;
    input.required = true;
    input.focus();
  });

  /** The card guide's place in a frame of the given size, as flow.css draws it over the video. */
  function guideBox(width, height) {
    var boxWidth = width * 0.84;
    var boxHeight = (boxWidth * 54) / 85.6;
    if (boxHeight > height * 0.88) {
      boxHeight = height * 0.88;
      boxWidth = (boxHeight * 85.6) / 54;
    }
    return { x: (width - boxWidth) / 2, y: (height - boxHeight) / 2, width: boxWidth, height: boxHeight };
  }

  var probe = document.createElement('canvas');
  /**
   * Brightness, washed-out share and sharpness inside the guide of a frame (the video or a shot), measured
   * at the scale the service measures blur at.
   */
  function measure(source, width, height) {
    var box = guideBox(width, height);
    var scale = Math.min(1, MEASURE_SIDE / Math.max(width, height));
    probe.width = Math.max(3, Math.round(box.width * scale));
    probe.height = Math.max(3, Math.round(box.height * scale));
    var context = probe.getContext('2d', { willReadFrequently: true });
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = 'high';
    context.drawImage(source, box.x, box.y, box.width, box.height, 0, 0, probe.width, probe.height);
    var pixels = context.getImageData(0, 0, probe.width, probe.height).data;
    var grey = new Float32Array(probe.width * probe.height);
    var sum = 0;
    var saturated = 0;
    for (var i = 0; i < grey.length; i++) {
      var value = 0.299 * pixels[i * 4] + 0.587 * pixels[i * 4 + 1] + 0.114 * pixels[i * 4 + 2];
      grey[i] = value;
      sum += value;
      if (pixels[i * 4] >= 245 && pixels[i * 4 + 1] >= 245 && pixels[i * 4 + 2] >= 245) saturated++;
    }
    var total = 0;
    var squares = 0;
    var count = 0;
    for (var y = 1; y < probe.height - 1; y++) {
      for (var x = 1; x < probe.width - 1; x++) {
        var at = y * probe.width + x;
        var l = 4 * grey[at] - grey[at - 1] - grey[at + 1] - grey[at - probe.width] - grey[at + probe.width];
        total += l;
        squares += l * l;
        count++;
      }
    }
    var mean = total / count;
    return { brightness: sum / grey.length, glare: saturated / grey.length, sharpness: squares / count - mean * mean };
  }

  function watch() {
    if (!stream || taken || holding) return;
    if (!video.videoWidth) return setTimeout(watch, 300);
    var seen = measure(video, video.videoWidth, video.videoHeight);
    if (seen.brightness < 50) hint.textContent = text.hintDark;
    else if (seen.glare > 0.04) hint.textContent = text.hintGlare;
    else if (seen.sharpness < SHARP_ENOUGH) hint.textContent = text.hintFocus;
    else hint.textContent = text.hintReady;
    setTimeout(watch, 400);
  }

  var candidate = document.createElement('canvas');

  /** Copies the video's current frame into `canvas` at the upload's size; its sharpness inside the guide. */
  function grab(canvas) {
    var width = video.videoWidth;
    var height = video.videoHeight;
    var scale = Math.min(1, LONG_SIDE / Math.max(width, height));
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    var context = canvas.getContext('2d');
    // A cheap downscale aliases the card's fine print into the same periodic ripples a photo of a
    // screen shows: the recapture check would then refuse a genuine card.
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = 'high';
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    return measure(canvas, canvas.width, canvas.height).sharpness;
  }

  /**
   * The shutter: the first frame sharp enough within HOLD_MS, or the sharpest one seen, into `shot`.
   * A blurred photo costs the person an attempt and a wait for the reading; a held shutter costs seconds.
   */
  shoot.addEventListener('click', function () {
    if (!video.videoWidth || !video.videoHeight) return;
    shoot.disabled = true;
    holding = true;
    var started = Date.now();
    var best = -1;
    (function look() {
      // The person switched to the file picker meanwhile: the camera is gone.
      if (!stream) {
        holding = false;
        return;
      }
      var sharpness = grab(candidate);
      if (sharpness > best) {
        best = sharpness;
        shot.width = candidate.width;
        shot.height = candidate.height;
        shot.getContext('2d').drawImage(candidate, 0, 0);
      }
      if (best < SHARP_ENOUGH && Date.now() - started < HOLD_MS) {
        hint.textContent = text.holding;
        return setTimeout(look, HOLD_STEP_MS);
      }
      holding = false;
      shot.dataset.sharpness = String(Math.round(best));
      show(best >= SHARP_ENOUGH ? text.review : text.reviewBlurred);
    })();
  });

  /** The shot, held still in the view to confirm or retake. */
  function show(message) {
    shot.toBlob(
      function (blob) {
        if (!blob) {
          shoot.disabled = false;
          watch();
          return;
        }
        taken = blob;
        video.pause();
        video.hidden = true;
        shot.hidden = false;
        shoot.hidden = true;
        review.hidden = false;
        hint.textContent = message;
        send.focus();
      },
      'image/jpeg',
      0.9,
    );
  }

  retake.addEventListener('click', function () {
    taken = null;
    shot.hidden = true;
    video.hidden = false;
    review.hidden = true;
    shoot.hidden = false;
    shoot.disabled = false;
    void video.play();
    watch();
    shoot.focus();
  });

  send.addEventListener('click', function () {
    if (!taken) return;
    send.disabled = true;
    retake.disabled = true;
    upload(taken);
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
        stopCamera();
        document.open();
        document.write(request.responseText);
        document.close();
        return;
      }
      stopCamera();
      // The server answered with the next page (after its redirect): go where it leads.
      window.location.assign(request.responseURL || target);
    });
    request.addEventListener('error', function () {
      progress.hidden = true;
      send.disabled = false;
      retake.disabled = false;
      hint.textContent = text.uploadFailed;
    });
    request.send(data);
  }
})();
