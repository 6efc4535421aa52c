// The video trimmer page (GET /trim/{identifier}): the video, a frame strip with two trim handles
// and a playhead that follow Tessera's TrimmingSlider rules (trim-model.js), looping playback
// inside the selection, and clip export through the server's jobs.
//
// The slider is the single source of truth for the three values. Pointer, keys and playback only
// call it, and every change it reports is then rendered and, when the user made it, shown in the
// video; so the rules (limits, snapping, the playhead kept inside the selection) hold whatever
// moved a value.

import { TrimmingSlider, TrimmingSliderGeometry, TrimmingSliderModel, TrimmingTimeFormat } from './trim-model.js';
import { FrameStrip } from './trim-strip.js';
import { exportClip } from './trim-export.js';
import { pagePath } from './page-path.js';

/** The control's layout in CSS px. The insets are half of what a 44-px hit target adds to a
 * 16-px handle, so a handle at either end of the clip keeps its whole target inside the control. */
const GEOMETRY = Object.freeze({
  height: 64, handleWidth: 16, barThickness: 4, leftInset: 14, rightInset: 14, playheadWidth: 4, minimumHitWidth: 44,
});
/** The shortest selection unless `?min=` says otherwise: long enough to be a clip at all, short
 * enough not to get in the way. There is no longest unless `?max=` sets one. */
const DEFAULT_MINIMUM_DURATION = 0.5;
/** Seeks land this far past the asked time, so a time on a frame boundary (k / fps, which floating
 * point can put a hair before the frame's timestamp) shows that frame and not the one before. */
const SEEK_NUDGE = 1e-3;

const $ = (id) => document.getElementById(id);
const elements = {
  main: $('main'), error: $('error'), name: $('name'), facts: $('facts'), stage: $('stage'), video: $('video'),
  play: $('play'), playLabel: $('play-label'), currentTime: $('current-time'), duration: $('duration'), snap: $('snap'),
  trimmer: $('trimmer'), strip: $('strip'), dimBefore: $('dim-before'), dimAfter: $('dim-after'), frame: $('frame'),
  bubble: $('bubble'), startTime: $('start-time'), lengthTime: $('length-time'), endTime: $('end-time'),
  exportButton: $('export'), progress: $('progress'), exportStatus: $('export-status'), copyHint: $('copy-hint'),
  result: $('result'), requestedRange: $('requested-range'), exportedRange: $('exported-range'),
  resultNote: $('result-note'), download: $('download'),
};
const thumbElements = { lower: $('thumb-lower'), upper: $('thumb-upper'), playhead: $('thumb-playhead') };
const video = elements.video;

/** Everything the page knows; `slider` is null until info.json has arrived. */
const state = {
  identifier: pagePath().startsWith('trim/') ? pagePath().slice('trim/'.length) : '',
  info: null,
  slider: null,
  strip: null,
  minimumDuration: DEFAULT_MINIMUM_DURATION,
  maximumDuration: null,
  errors: [],
  /** The handle whose frame the video shows instead of the playhead's: while it is dragged, and
   * after a key moved it until it loses focus or playback starts. */
  previewThumb: null,
  /** The thumb whose time floats above it: the dragged one, or the one moved by keys. */
  bubbleThumb: null,
  /** The thumb a pointer drags, between its editingBegan and editingEnded. */
  dragThumb: null,
  /** Playback paused for a drag, to resume when the drag ends. */
  resumeAfterDrag: false,
  /** Whether the user wants playback: it loops at the selection's end, and the clip's end too. */
  looping: false,
  /** A seek asked for while the video was still seeking; the latest wins. */
  pendingSeek: null,
  pointerId: null,
  /** The start the copy hint was written for: it changes only with the start. */
  hintLower: null,
  exporting: null,
};
const videoURL = `video/${state.identifier}`;

// MARK: - Errors

/** Shows a message in the page's alert. Fatal ones leave the controls disabled. */
function showError(message, { fatal = false } = {}) {
  state.errors.push(message);
  const line = document.createElement('p');
  line.textContent = message;
  elements.error.append(line);
  elements.error.hidden = false;
  if (fatal) {
    elements.main.setAttribute('aria-busy', 'false');
    elements.main.dataset.failed = '';
  }
}

// MARK: - Settings from the address

/** `?min=` and `?max=` in seconds; a value that is not one is reported and the default kept. */
function readDurationLimits(params) {
  const parse = (name) => {
    if (!params.has(name) || params.get(name).trim() === '') return undefined;
    const value = Number(params.get(name));
    if (Number.isFinite(value) && value >= 0) return value;
    showError(`Ignored ?${name}=${params.get(name)}: not a number of seconds.`);
    return undefined;
  };
  const minimum = parse('min');
  const maximum = parse('max');
  if (minimum !== undefined) state.minimumDuration = minimum;
  if (maximum !== undefined) {
    if (maximum >= state.minimumDuration) state.maximumDuration = maximum;
    else showError(`Ignored ?max=${maximum}: shorter than the minimum selection of ${state.minimumDuration} s.`);
  }
}

// MARK: - Formatting

const timeText = (seconds) => TrimmingTimeFormat.string(seconds);

/** m:ss.mmm (h:mm:ss.mmm from an hour): export results differ from the request by fractions of a
 * frame that the slider's tenths hide. */
function preciseTimeText(seconds) {
  const milliseconds = Math.round(Math.max(0, seconds) * 1000);
  const hours = Math.floor(milliseconds / 3_600_000);
  const minutes = Math.floor(milliseconds / 60_000) % 60;
  const rest = `${((milliseconds % 60_000) / 1000).toFixed(3).padStart(6, '0')}`;
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

const secondsText = (seconds) => `${seconds.toFixed(3)} s`;

// MARK: - The slider

function frameTimes() {
  const { duration, frameRate } = state.info;
  return elements.snap.checked && frameRate > 0 ? TrimmingSliderModel.frameTimes(duration, frameRate) : null;
}

/** A slider with the page's limits and snapping around the given values (clamped and snapped). */
function makeSlider({ lower = 0, upper = null, playhead = null } = {}) {
  const model = new TrimmingSliderModel({
    duration: state.info.duration, minimumDuration: state.minimumDuration, maximumDuration: state.maximumDuration,
    frameTimes: frameTimes(), lower, upper, playhead,
  });
  return new TrimmingSlider(model, currentGeometry());
}

function currentGeometry() {
  return new TrimmingSliderGeometry({ ...GEOMETRY, width: elements.trimmer.getBoundingClientRect().width });
}

/** Reacts to what the slider reported: drags starting and ending, and user changes shown in the
 * video. `byUser` is for key edits made through setters, whose changes report as programmatic.
 * Key edits are whole edits in one call, so only a pointer drag's begin and end matter here. */
function handle(events, { byUser = false } = {}) {
  let changedByUser = false;
  for (const event of events) {
    if (event.type === 'editingBegan' && event.thumb === state.slider.activeThumb) beginDrag(event.thumb);
    else if (event.type === 'editingEnded' && event.thumb === state.dragThumb) endDrag();
    else if (event.type === 'valueChanged' && (event.source === 'user' || byUser)) changedByUser = true;
  }
  if (events.length > 0) render();
  if (changedByUser) seek(videoTime());
}

/** A drag pauses playback until it ends; the video shows the dragged value, so a grabbed handle
 * shows the frame it cuts at from the start. */
function beginDrag(thumb) {
  state.dragThumb = thumb;
  state.bubbleThumb = thumb;
  state.previewThumb = thumb === 'playhead' ? null : thumb;
  if (!video.paused) {
    state.resumeAfterDrag = true;
    video.pause();
  }
  seek(videoTime());
}

function endDrag() {
  state.dragThumb = null;
  state.bubbleThumb = null;
  state.previewThumb = null;
  seek(videoTime());
  if (state.resumeAfterDrag) {
    state.resumeAfterDrag = false;
    play();
  }
}

/** The time the video should show: a previewed handle's, else the playhead's. */
function videoTime() {
  const { model } = state.slider;
  return model.value(state.previewThumb ?? 'playhead');
}

/** Seeks, one seek at a time: while the video is seeking only the latest request is kept, so a
 * fast drag shows frames as fast as the video can decode them instead of queueing stale ones. */
function seek(seconds) {
  if (video.readyState === HTMLMediaElement.HAVE_NOTHING || video.seeking) {
    state.pendingSeek = seconds;
    return;
  }
  state.pendingSeek = null;
  const target = Math.min(seconds + SEEK_NUDGE, state.info.duration);
  if (video.currentTime !== target) video.currentTime = target;
}

function flushPendingSeek() {
  if (state.pendingSeek !== null) seek(state.pendingSeek);
}

// MARK: - Rendering

function render() {
  const { slider } = state;
  const { geometry, model } = slider;
  const place = (element, rect) => {
    element.style.left = `${rect.minX}px`;
    element.style.width = `${rect.width}px`;
  };
  const strip = geometry.stripRect;
  const selection = geometry.selectionRect(model);
  place(elements.dimBefore, { minX: strip.minX, width: Math.max(0, selection.minX - strip.minX) });
  place(elements.dimAfter, { minX: selection.maxX, width: Math.max(0, strip.maxX - selection.maxX) });
  place(elements.frame, selection);
  for (const [thumb, element] of Object.entries(thumbElements)) {
    place(element, geometry.rect(thumb, model));
    const description = slider.accessibilityElement(thumb);
    element.setAttribute('aria-valuenow', String(description.value));
    element.setAttribute('aria-valuetext', description.valueText);
    element.setAttribute('aria-valuemin', String(description.minimum));
    element.setAttribute('aria-valuemax', String(description.maximum));
  }
  const { dimBefore, dimAfter } = elements;
  dimBefore.style.top = dimAfter.style.top = `${strip.minY}px`;
  dimBefore.style.height = dimAfter.style.height = `${strip.height}px`;
  thumbElements.playhead.style.top = `${strip.minY}px`;
  thumbElements.playhead.style.height = `${strip.height}px`;

  elements.startTime.textContent = timeText(model.lower);
  elements.endTime.textContent = timeText(model.upper);
  elements.lengthTime.textContent = timeText(model.upper - model.lower);
  elements.currentTime.textContent = timeText(model.playhead);
  if (state.hintLower !== model.lower) {
    state.hintLower = model.lower;
    elements.copyHint.textContent = copyHint(model.lower);
  }
  renderBubble();
}

function renderBubble() {
  const thumb = state.bubbleThumb;
  const bubble = elements.bubble;
  bubble.hidden = thumb === null;
  if (thumb === null) return;
  const { geometry, model } = state.slider;
  bubble.textContent = timeText(model.value(thumb));
  bubble.dataset.thumb = thumb;
  // Centred on the thumb's value line, kept inside the control.
  const x = geometry.x(model.value(thumb), model.duration);
  const half = bubble.offsetWidth / 2;
  bubble.style.left = `${Math.min(Math.max(x, half), geometry.width - half)}px`;
}

/** What a copy would really do from `lower`: it starts at the keyframe at or before it. */
function copyHint(lower) {
  const keyframes = state.info.keyframeTimes ?? [];
  const before = keyframes.filter((time) => time <= lower + 1e-6);
  const start = before.length > 0 ? before[before.length - 1] : 0;
  if (lower - start < 1e-3) return `No re-encoding: fast and lossless. Start (${timeText(lower)}) is on a keyframe, so the clip starts exactly there.`;
  return `No re-encoding: fast and lossless, but the clip starts at the keyframe at ${preciseTimeText(start)}, `
    + `${secondsText(lower - start)} before Start.`;
}

// MARK: - Pointer

function pointerX(event) {
  return event.clientX - elements.trimmer.getBoundingClientRect().left;
}

function onPointerDown(event) {
  if (!state.slider || !event.isPrimary || event.button !== 0 || state.pointerId !== null) return;
  const events = state.slider.touchBegan(pointerX(event));
  if (events.length === 0) return;
  // The slider decided what was grabbed, whatever element is under the pointer; so no native
  // focus or text selection, and the grabbed thumb gets the focus for the keys.
  event.preventDefault();
  state.pointerId = event.pointerId;
  elements.trimmer.setPointerCapture(event.pointerId);
  elements.trimmer.dataset.dragging = state.slider.activeThumb;
  thumbElements[state.slider.activeThumb].focus({ preventScroll: true });
  handle(events);
}

/** Moves, lifts and cancels are followed on the window: they reach it whether or not the control
 * still has the pointer captured, so a drag cannot get stuck. */
function onPointerMove(event) {
  if (event.pointerId === state.pointerId) handle(state.slider.touchMoved(pointerX(event)));
}

function onPointerUp(event) {
  if (event.pointerId !== state.pointerId) return;
  endPointer();
  handle(state.slider.touchEnded(pointerX(event)));
}

/** The system took the pointer (or the window lost focus mid-drag): the values stay where the
 * drag left them. */
function onPointerCancel(event) {
  if (state.pointerId === null || (event.pointerId !== undefined && event.pointerId !== state.pointerId)) return;
  endPointer();
  handle(state.slider.touchCancelled());
}

function endPointer() {
  state.pointerId = null;
  delete elements.trimmer.dataset.dragging;
}

/** The cursor says what a press would grab, by the same hit test the press uses. */
function showHoverCursor(x) {
  const hit = state.slider.hitTest(x);
  elements.trimmer.dataset.hover = hit === null ? 'none' : hit.track ? 'track' : hit.thumb;
}

// MARK: - Keys

/**
 * The WAI-ARIA slider keys. Arrows move one frame: with snapping on, the model's own step (the
 * neighbouring frame time); with it off the model would step a whole second, so the page steps
 * 1 / frame rate itself (a video with no known rate keeps the model's step). Page Up and Page Down
 * move one second, which is what a page means on a video timeline (the model's page is ten steps,
 * a third of a second at 30 fps). Home and End go to the thumb's current limits.
 */
function onThumbKey(event) {
  const thumb = event.currentTarget.dataset.thumb;
  const { slider, info } = state;
  if (!slider || event.altKey || event.ctrlKey || event.metaKey) return;
  const value = slider.model.value(thumb);
  const step = (direction) => (slider.model.snapTimes !== null || !(info.frameRate > 0)
    ? { events: slider.perform(direction > 0 ? 'increment' : 'decrement', thumb), byUser: false }
    : { events: slider.setValue(value + direction / info.frameRate, thumb), byUser: true });
  let edit;
  switch (event.key) {
    case 'ArrowRight': case 'ArrowUp': edit = step(1); break;
    case 'ArrowLeft': case 'ArrowDown': edit = step(-1); break;
    case 'PageUp': edit = { events: slider.setValue(value + 1, thumb), byUser: true }; break;
    case 'PageDown': edit = { events: slider.setValue(value - 1, thumb), byUser: true }; break;
    case 'Home': edit = { events: slider.perform('home', thumb), byUser: false }; break;
    case 'End': edit = { events: slider.perform('end', thumb), byUser: false }; break;
    default: return;
  }
  event.preventDefault();
  state.bubbleThumb = thumb;
  state.previewThumb = thumb === 'playhead' ? null : thumb;
  if (thumb !== 'playhead' && !video.paused) pause();
  handle(edit.events, { byUser: edit.byUser });
  renderBubble();
}

function onThumbBlur(event) {
  const thumb = event.currentTarget.dataset.thumb;
  if (state.slider?.activeThumb === thumb) return;
  if (state.bubbleThumb === thumb) state.bubbleThumb = null;
  if (state.previewThumb === thumb) {
    state.previewThumb = null;
    seek(videoTime());
  }
  if (state.slider) renderBubble();
}

/** Space plays and pauses from anywhere that does not use Space itself. */
function onDocumentKey(event) {
  if (event.key !== ' ' || !state.slider || event.repeat) return;
  const target = event.target;
  const usesSpace = target.closest('button, input, select, textarea, a, summary, [contenteditable]');
  if (usesSpace) return;
  event.preventDefault();
  togglePlayback();
}

// MARK: - Playback

function togglePlayback() {
  if (video.paused) play();
  else pause();
}

function pause() {
  state.looping = false;
  video.pause();
}

/** Plays from the playhead, or from the selection's start when the playhead sits at its end. */
function play() {
  const { slider } = state;
  state.looping = true;
  state.previewThumb = null;
  const frame = state.info.frameRate > 0 ? 1 / state.info.frameRate : 0;
  if (slider.model.playhead >= slider.model.upper - frame / 2) {
    handle(slider.setValue(slider.model.lower, 'playhead'));
    seek(slider.model.lower);
  } else if (Math.abs(video.currentTime - slider.model.playhead) > 0.01) {
    seek(slider.model.playhead);
  }
  video.play().catch((error) => {
    // A pause() before playback started rejects the promise too; that is no error.
    if (error.name === 'AbortError') return;
    state.looping = false;
    showError(`The video cannot play: ${error.message}`);
  });
}

/** The playhead follows each frame the video presents; past the selection's end, playback jumps
 * back to its start. */
function followPlayback(time) {
  const { slider } = state;
  if (!slider || video.paused || slider.activeThumb !== null) return;
  if (time >= slider.model.upper) {
    loopToStart();
    return;
  }
  handle(slider.setValue(time, 'playhead'));
}

function loopToStart() {
  const { slider } = state;
  handle(slider.setValue(slider.model.lower, 'playhead'));
  video.currentTime = slider.model.lower + SEEK_NUDGE;
}

function watchFrames() {
  if ('requestVideoFrameCallback' in HTMLVideoElement.prototype) {
    // The presented frame's own timestamp: the playhead snaps to the frame on screen.
    const onFrame = (_, metadata) => {
      followPlayback(metadata.mediaTime);
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  } else {
    const onAnimationFrame = () => {
      followPlayback(video.currentTime);
      requestAnimationFrame(onAnimationFrame);
    };
    requestAnimationFrame(onAnimationFrame);
  }
}

function showPlaying() {
  const playing = !video.paused;
  elements.play.classList.toggle('playing', playing);
  elements.playLabel.textContent = playing ? 'Pause' : 'Play';
  elements.play.title = playing ? 'Pause (Space)' : 'Play (Space)';
}

function onVideoError() {
  const codes = { 1: 'loading was aborted', 2: 'a network error', 3: 'the video could not be decoded', 4: 'this browser cannot play this format' };
  const why = codes[video.error?.code] ?? 'an unknown error';
  const codec = state.info ? ` (${state.info.codec})` : '';
  showError(`The video cannot be shown: ${why}${codec}. Trimming and export still work.`);
}

// MARK: - Export

function onExport() {
  const { slider } = state;
  const from = slider.model.lower;
  const to = slider.model.upper;
  const exact = document.querySelector('input[name="method"]:checked').value === 'exact';
  state.exporting = { state: 'starting', from, to, exact, result: null, download: null, error: null };
  elements.exportButton.disabled = true;
  elements.result.hidden = true;
  elements.exportStatus.classList.remove('error');
  elements.exportStatus.textContent = 'Starting the export…';
  elements.progress.hidden = false;
  elements.progress.removeAttribute('value');
  exportClip({
    videoURL, from, to, exact,
    onProgress(jobState, fraction) {
      state.exporting.state = jobState;
      if (jobState === 'queued') {
        elements.progress.removeAttribute('value');
        elements.exportStatus.textContent = 'Waiting for the server…';
      } else {
        elements.progress.value = fraction;
        elements.exportStatus.textContent = `Exporting… ${Math.round(fraction * 100)} %`;
      }
    },
  }).then(({ result, download }) => {
    Object.assign(state.exporting, { state: 'done', result, download });
    elements.progress.value = 1;
    elements.progress.hidden = true;
    elements.exportStatus.textContent = 'Export finished.';
    showResult({ from, to, exact }, result, download);
  }, (error) => {
    Object.assign(state.exporting, { state: 'failed', error: error.message });
    elements.progress.hidden = true;
    elements.exportStatus.classList.add('error');
    elements.exportStatus.textContent = error.message;
  }).finally(() => {
    elements.exportButton.disabled = false;
  });
}

function rangeMarkup(target, prefix, start, end) {
  target.replaceChildren();
  const span = (id, text) => Object.assign(document.createElement('span'), { id, textContent: text });
  target.append(span(`${prefix}-start`, preciseTimeText(start)), ' – ', span(`${prefix}-end`, preciseTimeText(end)),
    ' (', span(`${prefix}-length`, secondsText(end - start)), ')');
}

/** Shows what was asked for beside what came back: a copy starts at the keyframe at or before
 * the start, so the two differ, and the page says by how much. */
function showResult(request, result, download) {
  rangeMarkup(elements.requestedRange, 'requested', request.from, request.to);
  rangeMarkup(elements.exportedRange, 'exported', result.start, result.end);
  const notes = [];
  const earlier = request.from - result.start;
  const endDelta = result.end - request.to;
  if (Math.abs(earlier) >= 5e-4) notes.push(`starts ${secondsText(Math.abs(earlier))} ${earlier > 0 ? 'earlier' : 'later'}`);
  if (Math.abs(endDelta) >= 5e-4) notes.push(`ends ${secondsText(Math.abs(endDelta))} ${endDelta > 0 ? 'later' : 'earlier'}`);
  if (notes.length === 0) elements.resultNote.textContent = 'The clip is exactly the selection.';
  else {
    const why = request.exact ? 'frame times in the file' : 'a copy can only start on a keyframe';
    elements.resultNote.textContent = `The clip ${notes.join(' and ')} than requested (${why}).`;
  }
  elements.download.href = download;
  elements.download.textContent = `Download the clip (${secondsText(result.end - result.start)})`;
  elements.result.hidden = false;
}

// MARK: - Start-up

function showInfo(info) {
  document.title = `Trim ${info.name} · Tessera`;
  elements.name.textContent = info.name;
  const codec = info.codec === 'h264' ? 'H.264' : info.codec.toUpperCase();
  const facts = [`${info.width} × ${info.height}`, info.frameRate > 0 ? `${+info.frameRate.toFixed(3)} fps` : null, codec,
    info.hasAudio ? 'with sound' : 'no sound', timeText(info.duration)];
  elements.facts.textContent = facts.filter(Boolean).join(' · ');
  elements.duration.textContent = timeText(info.duration);
}

function layout() {
  const geometry = currentGeometry();
  state.slider.geometry = geometry;
  state.strip.layout(geometry, state.info.duration, window.devicePixelRatio || 1);
  render();
  elements.trimmer.dataset.ready = '';
}

function enable() {
  for (const [thumb, element] of Object.entries(thumbElements)) {
    element.dataset.thumb = thumb;
    element.removeAttribute('aria-disabled');
    element.addEventListener('keydown', onThumbKey);
    element.addEventListener('blur', onThumbBlur);
  }
  elements.play.disabled = false;
  elements.exportButton.disabled = false;
  elements.snap.disabled = !(state.info.frameRate > 0);
  if (elements.snap.disabled) elements.snap.checked = false;
  elements.main.setAttribute('aria-busy', 'false');
}

async function loadInfo() {
  const response = await fetch(`${videoURL}/info.json`);
  if (!response.ok) {
    const text = (await response.text()).trim();
    throw new Error(`${response.status === 404 ? 'Not found' : `Error ${response.status}`}: ${text || response.statusText}`);
  }
  return response.json();
}

async function start() {
  readDurationLimits(new URLSearchParams(location.search));
  elements.name.textContent = decodeURIComponent(state.identifier).split('/').pop() || 'Video';
  if (state.identifier === '') {
    showError('No video: the address should be /trim/ followed by the video’s identifier.', { fatal: true });
    return;
  }
  try {
    state.info = await loadInfo();
  } catch (error) {
    showError(`This video cannot be opened. ${error.message}`, { fatal: true });
    return;
  }
  const { info } = state;
  showInfo(info);
  state.slider = makeSlider();
  state.strip = new FrameStrip(elements.strip, {
    spriteURL: `${videoURL}/sprite.jpg`, aspect: info.width / info.height, mode: 'fast',
    onError: (message) => showError(message),
  });
  layout();
  enable();

  new ResizeObserver(layout).observe(elements.trimmer);
  // A move to a screen of another pixel density needs a sharper (or lighter) strip.
  const watchDensity = () => {
    matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`).addEventListener('change', () => {
      layout();
      watchDensity();
    }, { once: true });
  };
  watchDensity();

  const trimmer = elements.trimmer;
  trimmer.addEventListener('pointerdown', onPointerDown);
  trimmer.addEventListener('pointermove', (event) => { if (state.pointerId === null) showHoverCursor(pointerX(event)); });
  trimmer.addEventListener('pointerleave', () => { delete trimmer.dataset.hover; });
  window.addEventListener('pointermove', onPointerMove);
  window.addEventListener('pointerup', onPointerUp);
  window.addEventListener('pointercancel', onPointerCancel);
  window.addEventListener('blur', onPointerCancel);

  elements.snap.addEventListener('change', () => {
    const { model } = state.slider;
    state.slider = makeSlider({ lower: model.lower, upper: model.upper, playhead: model.playhead });
    render();
    seek(videoTime());
  });
  elements.play.addEventListener('click', togglePlayback);
  video.addEventListener('click', togglePlayback);
  document.addEventListener('keydown', onDocumentKey);
  elements.exportButton.addEventListener('click', onExport);

  video.addEventListener('play', showPlaying);
  video.addEventListener('pause', showPlaying);
  video.addEventListener('seeked', flushPendingSeek);
  video.addEventListener('loadedmetadata', () => seek(videoTime()));
  // With the selection running to the clip's end, playback ends instead of passing `upper`.
  video.addEventListener('ended', () => {
    if (!state.looping) return;
    loopToStart();
    play();
  });
  video.addEventListener('error', onVideoError);
  watchFrames();
  video.src = videoURL;
}

/** A read-only view for tests and diagnostics: copies, never the live objects. */
Object.defineProperty(window, 'tesseraTrimmer', {
  enumerable: true,
  value: Object.freeze({
    get ready() { return state.slider !== null; },
    get errors() { return [...state.errors]; },
    get info() { return state.info && structuredClone(state.info); },
    get duration() { return state.slider?.model.duration ?? null; },
    get minimumDuration() { return state.minimumDuration; },
    get maximumDuration() { return state.maximumDuration; },
    get lower() { return state.slider?.model.lower ?? null; },
    get upper() { return state.slider?.model.upper ?? null; },
    get playhead() { return state.slider?.model.playhead ?? null; },
    get activeThumb() { return state.slider?.activeThumb ?? null; },
    get snapping() { return state.slider !== null && state.slider.model.snapTimes !== null; },
    get geometry() {
      const geometry = state.slider?.geometry;
      return geometry ? { ...geometry, trackMinX: geometry.trackMinX, trackMaxX: geometry.trackMaxX } : null;
    },
    get strip() { return state.strip?.state ?? null; },
    get playing() { return !video.paused; },
    get videoTime() { return video.currentTime; },
    get export() { return state.exporting && structuredClone(state.exporting); },
  }),
});

start();
