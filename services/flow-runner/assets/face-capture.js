// Camera challenge for the face step: an enhancement of the challenge page, which without this script
// (or when the camera is refused or absent) says a camera is needed and, where the step allows it, offers
// the two-photo fallback. The front camera is shown mirrored (CSS only) in a square with an oval guide;
// the poses of `data-steps` are asked one after the other while frames are taken a few times a second:
// the square the person sees, at most 640 px, JPEG, sent unmirrored with the challenge's nonce and the
// times they were taken. Every text and every duration comes from the page: the script paces itself by
// the server's window.
(function () {
  'use strict';
  var root = document.querySelector('[data-face-challenge]');
  if (!root) return;
  var text = root.dataset;
  var noCamera = root.querySelector('[data-face-no-camera]');
  /** Why the camera cannot be used, and the page's way on (the two photos, the QR code): never "JavaScript is off". */
  function cameraUnavailable(message) {
    if (!noCamera) return;
    noCamera.textContent = message + ' ' + (text.cameraWayOn || '');
    noCamera.hidden = false;
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.FormData) {
    cameraUnavailable(text.cameraUnsupported);
    return;
  }
  var actionInput = document.querySelector('form input[name="action"][value="frames"]');
  var form = actionInput && actionInput.form;
  var camera = root.querySelector('[data-face-camera]');
  var video = root.querySelector('[data-face-video]');
  if (!form || !camera || !video) return;
  var oval = root.querySelector('[data-face-oval]');
  var instruction = root.querySelector('[data-face-instruction]');
  var hint = root.querySelector('[data-face-hint]');
  var progress = root.querySelector('[data-face-progress]');
  var stepItems = document.querySelectorAll('.face-steps li');
  // Not `form.action`: the form's field named "action" would shadow it.
  var target = root.getAttribute('data-action') || form.getAttribute('action');
  var steps = (text.steps || '').split(',').filter(Boolean);
  var holdMs = Number(text.holdMs) || 0;
  var maxFrames = Number(text.maxFrames) || 30;
  var maxFrameBytes = Number(text.maxFrameBytes) || 8 * 1024 * 1024;
  var maxTotalBytes = Number(text.maxTotalBytes) || maxFrameBytes;
  /** The longest the frames may span, first to last (the server measures it on their times). */
  var windowMs = Number(text.windowMs) || 0;
  // The challenge's last moment for the frames to arrive, on the page's clock: `performance.now()` counts
  // from the navigation's start, which came before the server rendered the page, so this errs short.
  var deadline = Number(text.expiresInMs) || 0;
  // Frame times are milliseconds since the challenge was issued: the server's count at the render, then
  // this script's clock from its own start, which came after the render, so they err early, never late.
  var issuedAgoMs = Number(text.issuedAgoMs) || 0;
  var startedAt = performance.now();
  var SIDE = 640;
  /** A moment to find the oval once the camera shows a picture: a fortieth of the window (1.5 s of 60 s). */
  var READY_MS = windowMs / 40;
  /** A pose: read the instruction, turn, and hold it past `holdMs` with several frames; all within the window. */
  var POSE_MS = Math.min(holdMs + 2000, windowMs / Math.max(1, steps.length));
  /** Kept back for sending the frames before the challenge's last moment: as long as the window itself. */
  var UPLOAD_MARGIN_MS = windowMs;
  var FRAME_EVERY_MS = 333;
  if (steps.length === 0 || windowMs <= 0) return;

  var stream = null;
  var detector = null;
  var phase = 'starting';
  var currentPose = null;
  var poseStartedAt = 0;

  function show(node, value) {
    if (node) node.textContent = value || '';
  }

  function alertBox(message) {
    var box = document.createElement('p');
    box.className = 'alert';
    box.setAttribute('role', 'alert');
    box.textContent = message;
    root.insertBefore(box, root.firstChild);
  }

  /** A button that posts `start` (a new challenge), with the page's own CSRF token and step. */
  function restartButton(container) {
    var again = document.createElement('form');
    again.method = 'post';
    again.setAttribute('action', form.getAttribute('action'));
    ['_csrf', 'step'].forEach(function (name) {
      var field = form.querySelector('input[name="' + name + '"]');
      if (!field) return;
      var copy = document.createElement('input');
      copy.type = 'hidden';
      copy.name = name;
      copy.value = field.value;
      again.appendChild(copy);
    });
    var button = document.createElement('button');
    button.type = 'submit';
    button.name = 'action';
    button.value = 'start';
    button.className = 'primary';
    button.textContent = text.textRestart;
    var actions = document.createElement('div');
    actions.className = 'actions';
    actions.appendChild(button);
    again.appendChild(actions);
    (container || root).appendChild(again);
  }

  function stopCamera() {
    if (stream)
      stream.getTracks().forEach(function (track) {
        track.stop();
      });
    stream = null;
  }

  function fail(message) {
    phase = 'failed';
    stopCamera();
    camera.hidden = true;
    alertBox(message);
  }

  /** Time left before the challenge's last moment, less what is kept for the upload. */
  function timeLeft() {
    return deadline - performance.now() - UPLOAD_MARGIN_MS;
  }

  function sinceIssued() {
    return issuedAgoMs + Math.floor(performance.now() - startedAt);
  }

  /** The ready moment counts from the camera's first picture: a slow phone may take seconds to give one. */
  function whenPictured(then) {
    if (phase !== 'ready') return;
    if (!video.videoWidth) {
      setTimeout(function () {
        whenPictured(then);
      }, 100);
      return;
    }
    setTimeout(then, READY_MS);
  }

  navigator.mediaDevices
    .getUserMedia({
      video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 720 } },
      audio: false,
    })
    .then(function (media) {
      stream = media;
      video.srcObject = media;
      return video.play();
    })
    .then(function () {
      camera.hidden = false;
      if ('FaceDetector' in window) {
        try {
          detector = new window.FaceDetector({ fastMode: true, maxDetectedFaces: 3 });
        } catch (error) {
          detector = null;
        }
      }
      phase = 'ready';
      show(instruction, text.textReady);
      watch();
      whenPictured(startChallenge);
    })
    .catch(function (error) {
      // Refused, absent or busy: say which, and the page's own way on (the two photos, the QR code).
      stopCamera();
      if (phase !== 'starting') return;
      phase = 'failed';
      var name = error && error.name;
      if (name === 'NotAllowedError' || name === 'SecurityError') cameraUnavailable(text.cameraDenied);
      else if (name === 'NotFoundError' || name === 'OverconstrainedError') cameraUnavailable(text.cameraMissing);
      else if (name === 'NotReadableError' || name === 'AbortError') cameraUnavailable(text.cameraBusy);
      else cameraUnavailable(text.cameraFailed);
    });

  // ---- live hints: light everywhere, the face's size, place and turn where a detector runs ----

  var probe = document.createElement('canvas');
  probe.width = 48;
  probe.height = 64;
  var probeContext = probe.getContext('2d', { willReadFrequently: true });

  /**
   * The middle square of the camera's picture: what the page shows (CSS `object-fit: cover`) and what is
   * sent. The server's face models read square frames best: in 640×480 frames of the test sequence most
   * turned heads' yaw fell below what a turn needs and a face was lost (docs/decisions.md).
   */
  function visibleSquare() {
    var width = video.videoWidth;
    var height = video.videoHeight;
    var side = Math.min(width, height);
    return { x: (width - side) / 2, y: (height - side) / 2, side: side };
  }

  /** Mean luma of the oval's middle: a dark room makes every model miss the face. */
  function luminance() {
    var square = visibleSquare();
    var width = square.side * 0.5;
    var height = square.side * 0.66;
    probeContext.drawImage(
      video,
      square.x + (square.side - width) / 2,
      square.y + (square.side - height) / 2,
      width,
      height,
      0,
      0,
      48,
      64,
    );
    var pixels = probeContext.getImageData(0, 0, 48, 64).data;
    var sum = 0;
    for (var i = 0; i < pixels.length; i += 4) sum += 0.299 * pixels[i] + 0.587 * pixels[i + 1] + 0.114 * pixels[i + 2];
    return sum / (pixels.length / 4);
  }

  function landmark(face, type) {
    var marks = face.landmarks || [];
    for (var i = 0; i < marks.length; i++) if (marks[i].type === type) return marks[i].locations;
    return null;
  }

  /**
   * How far the head is turned, from where the nose sits between the eyes (in the camera's unmirrored
   * frame the person's own left is the image's right): positive for their left. Null without landmarks.
   */
  function turnOf(face) {
    var eyes = landmark(face, 'eye');
    var nose = landmark(face, 'nose');
    if (!eyes || eyes.length < 2 || !nose || nose.length < 1) return null;
    var left = eyes[0];
    var right = eyes[1];
    var distance = Math.abs(right.x - left.x);
    if (distance < 1) return null;
    return (nose[0].x - (left.x + right.x) / 2) / distance;
  }

  function judgeFaces(faces) {
    if (faces.length === 0) return text.textReady;
    if (faces.length > 1) return text.textSeveral;
    var box = faces[0].boundingBox;
    var square = visibleSquare();
    if (box.width < square.side * 0.3) return text.textCloser;
    var offX = Math.abs(box.x + box.width / 2 - (square.x + square.side / 2)) / square.side;
    var offY = Math.abs(box.y + box.height / 2 - (square.y + square.side / 2)) / square.side;
    if (offX > 0.15 || offY > 0.18) return text.textCenter;
    if (currentPose === 'left' || currentPose === 'right') {
      var turn = turnOf(faces[0]);
      var wanted = currentPose === 'left' ? turn > 0.18 : turn < -0.18;
      if (turn !== null && !wanted && performance.now() - poseStartedAt > POSE_MS * 0.4) return text.textTurnMore;
    }
    return phase === 'capturing' ? text.textHold : '';
  }

  function watch() {
    if (phase !== 'ready' && phase !== 'capturing') return;
    if (!video.videoWidth) {
      setTimeout(watch, 200);
      return;
    }
    var dark = luminance() < 55;
    var next = function (message) {
      show(hint, dark ? text.textLight : message);
      if (oval) oval.classList.toggle('ok', !dark && message === text.textHold);
      setTimeout(watch, 400);
    };
    if (!detector) return next('');
    detector.detect(video).then(
      function (faces) {
        next(judgeFaces(faces));
      },
      function () {
        detector = null;
        next('');
      },
    );
  }

  // ---- the challenge: each pose in the server's order, frames at a few per second ----

  var canvas = document.createElement('canvas');
  var frames = [];
  var pending = 0;
  var bytes = 0;
  var lastAt = -1;

  function startChallenge() {
    if (phase !== 'ready') return;
    // A pose below a few frames cannot be held; poses and upload must fit before the challenge is too old.
    var perPose = POSE_MS;
    if (perPose < holdMs + 3 * 100 || timeLeft() < perPose * steps.length) {
      fail(text.textExpired);
      restartButton();
      return;
    }
    var framesPerPose = Math.max(3, Math.min(Math.floor(maxFrames / steps.length), Math.round(perPose / FRAME_EVERY_MS)));
    var every = perPose / framesPerPose;
    phase = 'capturing';
    steps.forEach(function (pose, index) {
      setTimeout(function () {
        beginPose(pose, index);
      }, index * perPose);
      for (var frame = 0; frame < framesPerPose; frame++) {
        setTimeout(takeFrame, index * perPose + (frame + 0.5) * every);
      }
    });
    setTimeout(finish, steps.length * perPose);
  }

  function beginPose(pose, index) {
    currentPose = pose;
    poseStartedAt = performance.now();
    show(instruction, text['pose' + pose.charAt(0).toUpperCase() + pose.slice(1)]);
    for (var i = 0; i < stepItems.length; i++) {
      if (i < index) stepItems[i].classList.add('done');
      if (i === index) stepItems[i].setAttribute('aria-current', 'step');
      else stepItems[i].removeAttribute('aria-current');
    }
  }

  function takeFrame() {
    if (phase !== 'capturing' || !video.videoWidth || frames.length >= maxFrames) return;
    var square = visibleSquare();
    canvas.width = canvas.height = Math.round(Math.min(SIDE, square.side));
    var context = canvas.getContext('2d');
    // A cheap downscale aliases fine texture into the ripples a photo of a screen shows.
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = 'high';
    // The video element itself, never its mirrored rendering: the server reads the person's own left.
    context.drawImage(video, square.x, square.y, square.side, square.side, 0, 0, canvas.width, canvas.height);
    var at = Math.max(lastAt + 1, sinceIssued());
    lastAt = at;
    var slot = { at: at, blob: null };
    frames.push(slot);
    pending++;
    encode(0.85);

    function encode(quality) {
      canvas.toBlob(
        function (blob) {
          if (blob && blob.size > maxFrameBytes && quality > 0.5) return encode(quality - 0.2);
          pending--;
          if (blob && blob.size <= maxFrameBytes && bytes + blob.size <= maxTotalBytes) {
            slot.blob = blob;
            bytes += blob.size;
          }
          if (phase === 'encoding' && pending === 0) upload();
        },
        'image/jpeg',
        quality,
      );
    }
  }

  function finish() {
    if (phase !== 'capturing') return;
    phase = 'encoding';
    currentPose = null;
    stopCamera();
    for (var i = 0; i < stepItems.length; i++) {
      stepItems[i].classList.add('done');
      stepItems[i].removeAttribute('aria-current');
    }
    show(instruction, text.textDone);
    show(hint, '');
    if (oval) oval.classList.remove('ok');
    if (pending === 0) upload();
  }

  function upload() {
    if (phase !== 'encoding') return;
    phase = 'uploading';
    var taken = frames.filter(function (slot) {
      return slot.blob;
    });
    var data = new FormData(form);
    data.set('action', 'frames');
    data.set(
      'at_ms',
      taken
        .map(function (slot) {
          return slot.at;
        })
        .join(','),
    );
    taken.forEach(function (slot, index) {
      data.append('frame', slot.blob, 'frame-' + index + '.jpg');
    });
    camera.classList.add('sending');
    if (progress) {
      progress.hidden = false;
      progress.value = 0;
    }
    show(hint, text.textUploading);
    var request = new XMLHttpRequest();
    request.open('POST', target);
    request.upload.addEventListener('progress', function (event) {
      if (progress && event.lengthComputable) progress.value = Math.round((event.loaded / event.total) * 100);
    });
    request.addEventListener('load', function () {
      if (request.status >= 400) {
        // A page that says what went wrong (frames too large, an error): show it as it came.
        document.open();
        document.write(request.responseText);
        document.close();
        return;
      }
      var answer = new DOMParser().parseFromString(request.responseText, 'text/html');
      var refusal = answer.querySelector('main [role="alert"]');
      var main = document.querySelector('main');
      // Accepted frames lead to the progress page; a challenge page with an alert is a refusal.
      if (refusal && answer.querySelector('[data-face-challenge]') && main && answer.querySelector('main')) {
        // Show why, without starting the camera again (scripts set by innerHTML do not run).
        main.innerHTML = answer.querySelector('main').innerHTML;
        restartButton(main.querySelector('[data-face-challenge]') || main);
        return;
      }
      // Accepted: the server redirected to the flow, which shows the progress page until the verdict.
      window.location.assign(request.responseURL || target);
    });
    request.addEventListener('error', function () {
      phase = 'failed';
      if (progress) progress.hidden = true;
      alertBox(text.textUploadFailed);
      restartButton();
    });
    request.send(data);
  }
})();
