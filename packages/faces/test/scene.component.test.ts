import { SCENE_CHANGE_LIMIT } from '../src/liveness';
import { sceneChange, sceneLayout } from '../src/scene';

// Small synthetic frames (240×320, a face box in the middle): the scene is what lies around it.
const WIDTH = 240;
const HEIGHT = 320;
const FACE = { x: 80, y: 90, width: 80, height: 100 };

type Paint = (x: number, y: number) => [number, number, number];

function frame(paint: Paint): Uint8Array {
  const data = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y += 1)
    for (let x = 0; x < WIDTH; x += 1) {
      const offset = (y * WIDTH + x) * 3;
      const [r, g, b] = paint(x, y);
      data[offset] = Math.min(255, Math.max(0, Math.round(r)));
      data[offset + 1] = Math.min(255, Math.max(0, Math.round(g)));
      data[offset + 2] = Math.min(255, Math.max(0, Math.round(b)));
    }
  return data;
}

/** A room: a warm lamp top left, a blue curtain on the right, a dark sofa below. */
const room: Paint = (x, y) => {
  const lamp = 200 * Math.exp(-((x - 30) ** 2 + (y - 40) ** 2) / 3000);
  const curtain = x > 170 ? 60 : 0;
  const sofa = y > 240 ? -50 : 0;
  return [70 + lamp + sofa, 70 + lamp * 0.8 + sofa, 60 + lamp * 0.4 + curtain + sofa];
};

/** Another room: a bright window on the right, a green plant bottom left. */
const otherRoom: Paint = (x, y) => {
  const window = x > 150 && y < 160 ? 140 : 0;
  const plant = x < 70 && y > 200 ? 1 : 0;
  return [90 + window - 40 * plant, 85 + window + 50 * plant, 80 + window - 30 * plant];
};

/** The same light as the camera would see it one frame later with other exposure and white balance. */
const relit =
  (paint: Paint, gain: number, gamma: number, warmth: number): Paint =>
  (x, y) => {
    const [r, g, b] = paint(x, y);
    const tone = (value: number) => 255 * (Math.max(0, value) / 255) ** gamma * gain;
    return [tone(r) * (1 + warmth), tone(g), tone(b) * (1 - warmth)];
  };

const mirrored =
  (paint: Paint): Paint =>
  (x, y) =>
    paint(WIDTH - 1 - x, y);

const layout = (paint: Paint, face = FACE) => sceneLayout(frame(paint), WIDTH, HEIGHT, face);

describe('sceneChange', () => {
  it('when the same room is seen with darker exposure, another tone curve and warmer light, then the change stays far below the limit', () => {
    const change = sceneChange(layout(room), layout(relit(room, 0.55, 1.3, 0.08)));
    expect(change).not.toBeNull();
    expect(change!).toBeLessThan(SCENE_CHANGE_LIMIT / 3);
  });

  it('when the face moves a little in front of the same room, then the change stays below the limit', () => {
    const moved = { ...FACE, x: FACE.x + 15, y: FACE.y - 10 };
    expect(sceneChange(layout(room), layout(room, moved))!).toBeLessThan(SCENE_CHANGE_LIMIT / 2);
  });

  it('when the room is seen mirrored, then it counts as the same scene', () => {
    expect(sceneChange(layout(room), layout(mirrored(room)))!).toBeLessThan(0.05);
  });

  it('when a frame was taken in another room, then the change reaches the limit', () => {
    expect(sceneChange(layout(room), layout(otherRoom))!).toBeGreaterThanOrEqual(SCENE_CHANGE_LIMIT);
  });

  it('when both frames show a plain wall with only noise, then there is no structure to compare and the change stays low', () => {
    let state = 7;
    const noisy: Paint = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      const grain = (state / 2147483648 - 0.5) * 6;
      return [150 + grain, 148 + grain, 140 + grain];
    };
    expect(sceneChange(layout(noisy), layout(noisy))!).toBeLessThan(0.2);
  });

  it('when the face fills the frame and too few cells lie around it, then the layouts are not compared', () => {
    const whole = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
    expect(sceneChange(layout(room, whole), layout(room, whole))).toBeNull();
  });
});
