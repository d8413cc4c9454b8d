import { FlowConfigSchema, newArtefactId } from '@idv/contracts';
import { initialState, type FlowState } from '../src/domain/engine';
import { deviceClass, timelineOfChange } from '../src/domain/timeline';
import { CHOICE_STEP } from './fixtures';

describe('the device class of a User-Agent', () => {
  test.each([
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'phone',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
      'phone',
    ],
    ['Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0', 'phone'],
    [
      'Mozilla/5.0 (Linux; Android 13; SM-A546E) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0 Mobile Safari/537.36',
      'phone',
    ],
    [
      'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'tablet',
    ],
    ['Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'tablet'],
    ['Mozilla/5.0 (Android 14; Tablet; rv:127.0) Gecko/127.0 Firefox/127.0', 'tablet'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      'desktop',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      'desktop',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 'desktop'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'desktop'],
    ['curl/8.5.0', 'unknown'],
    ['', 'unknown'],
    ['   ', 'unknown'],
  ])('when the User-Agent is %j, then the device is a %s', (userAgent, expected) => {
    expect(deviceClass(userAgent)).toBe(expected);
  });

  test('when there is no User-Agent, then the device is unknown', () => {
    expect(deviceClass(undefined)).toBe('unknown');
    expect(deviceClass(null)).toBe('unknown');
  });
});

describe('what a stored change of the flow did', () => {
  const config = FlowConfigSchema.parse({ steps: [CHOICE_STEP, { id: 'selfie', type: 'face_liveness', maxAttempts: 2 }] });
  const at = (change: (state: FlowState) => void, from: FlowState = initialState()): FlowState => {
    const state = structuredClone(from);
    change(state);
    return state;
  };
  const otp = {
    channel: 'email' as const,
    destination: 'x@example.com',
    codeHash: 'h',
    expiresAt: 0,
    lastSentAt: 0,
    attempts: 0,
  };
  const onMail = at((state) => {
    state.steps.consent = { status: 'passed' };
    state.activeOption.contact = 'mail';
    state.steps.mail = { status: 'pending' };
  });

  test('when a live code send was counted and then refused by the provider, then the send and its failure are told, with the channel only', () => {
    const counted = at((state) => (state.steps.mail = { status: 'pending', phase: 'code', otp: { ...otp, sends: 1 } }), onMail);

    expect(timelineOfChange(config, onMail, counted)).toEqual([
      { kind: 'code_sent', stepId: 'mail', attempt: 1, detail: { channel: 'email' } },
    ]);
    expect(timelineOfChange(config, counted, onMail)).toEqual([
      { kind: 'code_send_failed', stepId: 'mail', attempt: 1, detail: { channel: 'email' } },
    ]);
  });

  test('when an option passes its choice, then the option, the choice and the option not taken are decided in that order, and the next step starts', () => {
    const coded = at((state) => (state.steps.mail = { status: 'pending', phase: 'code', otp: { ...otp, sends: 1 } }), onMail);
    const passed = at((state) => {
      state.steps.mail = { ...state.steps.mail!, status: 'passed' };
      state.steps.contact = { status: 'passed' };
      state.steps.phone = { status: 'skipped' };
      state.activeOption.contact = null;
    }, coded);

    expect(timelineOfChange(config, coded, passed).map((draft) => [draft.kind, draft.stepId, draft.detail?.verdict])).toEqual([
      ['code_verified', 'mail', undefined],
      ['step_decided', 'mail', 'approved'],
      ['step_decided', 'contact', 'approved'],
      ['step_decided', 'phone', 'skipped'],
      ['step_started', 'selfie', undefined],
    ]);
  });

  test('when a face attempt could not be judged, then it is asked for again with the retry message and the attempt given back', () => {
    const judging = at((state) => {
      state.steps.contact = { status: 'passed' };
      state.steps.selfie = {
        status: 'pending',
        face: { attempts: 1, judging: { artefactId: newArtefactId(), method: 'camera' } },
      };
    }, onMail);
    const unjudged = at((state) => (state.steps.selfie = { status: 'pending', face: { attempts: 0, last: 'retry' } }), judging);

    expect(timelineOfChange(config, judging, unjudged)).toEqual([
      {
        kind: 'capture_read',
        stepId: 'selfie',
        attempt: 1,
        detail: { capture: 'face_frames', result: 'asked_again', reason: 'unjudged', message_key: 'face.reasons.retry' },
      },
    ]);
  });

  test('when nothing the timeline tells changed (a hand-over offer stored), then nothing is drafted', () => {
    const offered = at((state) => (state.handover = { offers: [{ tokenHash: 'h', expiresAt: 1 }], movedFrom: [] }), onMail);

    expect(timelineOfChange(config, onMail, offered)).toEqual([]);
  });
});
