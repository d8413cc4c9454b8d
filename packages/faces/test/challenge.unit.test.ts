import { classifyPose, createChallenge, parseChallengeSteps, POSE_LIMITS, POSE_STEPS } from '../src/challenge';

describe('createChallenge', () => {
  it('when a challenge is created, then it holds every pose once, a fresh nonce and the window from now', () => {
    const challenge = createChallenge({ attemptId: 'a1', now: 1000, windowMs: 15_000, holdMs: 400 });

    expect([...challenge.steps].sort()).toEqual([...POSE_STEPS].sort());
    expect(challenge.nonce).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(challenge).toMatchObject({ attemptId: 'a1', issuedAt: 1000, expiresAt: 16_000, holdMs: 400 });
  });

  it('when challenges are created repeatedly, then nonces never repeat and every order comes up', () => {
    const challenges = Array.from({ length: 300 }, () => createChallenge({ attemptId: 'a', now: 0, windowMs: 1, holdMs: 0 }));

    expect(new Set(challenges.map((c) => c.nonce)).size).toBe(300);
    expect(new Set(challenges.map((c) => c.steps.join(','))).size).toBe(6);
  });

  it('when the random source is fixed, then the order is the shuffle it dictates', () => {
    const challenge = createChallenge({ attemptId: 'a', now: 0, windowMs: 1, holdMs: 0, randomInt: () => 0 });

    expect(challenge.steps).toEqual(['left', 'right', 'straight']);
  });

  it('when some steps are asked for, then only those are shuffled', () => {
    const challenge = createChallenge({ attemptId: 'a', now: 0, windowMs: 1, holdMs: 0, steps: ['left', 'right'] });

    expect([...challenge.steps].sort()).toEqual(['left', 'right']);
  });
});

describe('classifyPose', () => {
  it.each([
    [0, 0, 'straight'],
    [POSE_LIMITS.straightMaxYaw, 5, 'straight'],
    [15, 0, 'between'],
    [-POSE_LIMITS.turnMinYaw, 0, 'left'],
    [-40, 0, 'left'],
    [POSE_LIMITS.turnMinYaw, 0, 'right'],
    [35, -10, 'right'],
    [0, 40, 'between'],
  ] as const)('when yaw is %d° and pitch %d°, then the pose is %s', (yaw, pitch, expected) => {
    expect(classifyPose({ yaw, pitch, roll: 0 })).toBe(expected);
  });
});

describe('parseChallengeSteps', () => {
  it('when the list names known poses, then it is parsed in order', () => {
    expect(parseChallengeSteps('straight, left,right')).toEqual(['straight', 'left', 'right']);
  });

  it('when the list is empty or names an unknown pose, then it is refused', () => {
    expect(parseChallengeSteps('')).toBeNull();
    expect(parseChallengeSteps('left,up')).toBeNull();
  });
});
