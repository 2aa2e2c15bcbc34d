/**
 * Maps a point on the video element to a pixel of the stream. The element shows the stream with
 * `object-fit: contain`, so bars appear left and right (pillarbox) or above and below (letterbox).
 */

/** The element's box on the page, in CSS pixels. */
export interface ElementBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The stream's size in pixels (`videoWidth`, `videoHeight`). */
export interface StreamSize {
  width: number;
  height: number;
}

/** Where the picture is drawn inside the element, and its scale from stream pixels to CSS pixels. */
export function containedRect(box: ElementBox, stream: StreamSize) {
  const scale = Math.min(box.width / stream.width, box.height / stream.height);
  const width = stream.width * scale;
  const height = stream.height * scale;
  return {
    left: box.left + (box.width - width) / 2,
    top: box.top + (box.height - height) / 2,
    width,
    height,
    scale,
  };
}

/**
 * Stream pixel under a page point, or undefined when the point is on a bar, outside the element, or no frame
 * has arrived yet. With `clamp`, points outside the picture are moved to its nearest edge instead
 * (a drag that leaves the picture still ends somewhere).
 */
export function toStreamPoint(
  clientX: number,
  clientY: number,
  box: ElementBox,
  stream: StreamSize,
  clamp = false,
): { x: number; y: number } | undefined {
  if (stream.width <= 0 || stream.height <= 0 || box.width <= 0 || box.height <= 0) return undefined;
  const picture = containedRect(box, stream);
  let x = (clientX - picture.left) / picture.scale;
  let y = (clientY - picture.top) / picture.scale;
  const inside = x >= 0 && y >= 0 && x < stream.width && y < stream.height;
  if (!inside && !clamp) return undefined;
  x = Math.min(stream.width - 1, Math.max(0, x));
  y = Math.min(stream.height - 1, Math.max(0, y));
  return { x: Math.floor(x), y: Math.floor(y) };
}

/**
 * The page point over a stream pixel: the inverse of toStreamPoint, at the pixel's centre (which toStreamPoint
 * maps back to the same pixel). Undefined before the first frame or for an element not laid out. The viewer
 * draws another person's pointer there.
 */
export function toPagePoint(
  point: { x: number; y: number },
  box: ElementBox,
  stream: StreamSize,
): { x: number; y: number } | undefined {
  if (stream.width <= 0 || stream.height <= 0 || box.width <= 0 || box.height <= 0) return undefined;
  const picture = containedRect(box, stream);
  return {
    x: picture.left + (point.x + 0.5) * picture.scale,
    y: picture.top + (point.y + 0.5) * picture.scale,
  };
}
