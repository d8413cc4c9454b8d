// The synthetic document corpus (packages/corpus/README.md): documents and their payloads, rendering,
// the camera and recapture simulations, and the labelled generator used by the CLI, the calibration
// and the benchmark.
export * from './random';
export * from './dates';
export * from './identity';
export * from './payloads';
export * from './documents';
export * from './geometry';
export { type RgbImage, type RgbaImage, encodeJpeg, encodePng } from './raster';
export { SURFACES, type Surface, type Glare, type Lighting, type Placement } from './photo';
export * from './recapture';
export { drawSide, sideSvg, ID1, ID3, REGION_NAMES, type RegionName, type SideDrawing } from './render/layouts';
export * from './generate';
export * from './cache';
export * from './faces/sources';
export * from './faces/sequences';
