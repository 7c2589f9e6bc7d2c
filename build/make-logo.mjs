// Draws assets/logo.png: three stacked, offset layers on a rounded indigo tile (the "stack").
// Run once when the logo changes: node build/make-logo.mjs
import { deflateSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';

const SIZE = 256;
const px = new Uint8Array(SIZE * SIZE * 4);

function inRoundRect(x, y, x0, y0, x1, y1, r) {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

// A layer is a rhombus (an isometric slab seen from above).
function inSlab(x, y, cx, cy, w, h) {
  return Math.abs(x - cx) / w + Math.abs(y - cy) / h <= 1;
}

function blend(i, [r, g, b], a) {
  px[i] = Math.round(px[i] * (1 - a) + r * a);
  px[i + 1] = Math.round(px[i + 1] * (1 - a) + g * a);
  px[i + 2] = Math.round(px[i + 2] * (1 - a) + b * a);
  px[i + 3] = Math.max(px[i + 3], Math.round(255 * a));
}

const layers = [
  { cy: 168, color: [99, 102, 241] },
  { cy: 128, color: [129, 140, 248] },
  { cy: 88, color: [224, 231, 255] },
];

for (let y = 0; y < SIZE; y++) {
  for (let x = 0; x < SIZE; x++) {
    const i = (y * SIZE + x) * 4;
    // 4x supersampling for smooth edges.
    let tile = 0;
    const slabs = layers.map(() => 0);
    for (let sy = 0; sy < 2; sy++) for (let sx = 0; sx < 2; sx++) {
      const fx = x + (sx + 0.5) / 2, fy = y + (sy + 0.5) / 2;
      if (inRoundRect(fx, fy, 8, 8, SIZE - 8, SIZE - 8, 48)) tile++;
      layers.forEach((l, k) => { if (inSlab(fx, fy, 128, l.cy, 84, 40)) slabs[k]++; });
    }
    if (tile) {
      const t = y / SIZE;
      blend(i, [Math.round(30 + 10 * t), Math.round(27 + 8 * t), Math.round(75 + 40 * t)], tile / 4);
    }
    layers.forEach((l, k) => { if (slabs[k] && tile) blend(i, l.color, (slabs[k] / 4) * 0.96); });
  }
}

function crc32(buf) {
  let c, crc = 0xffffffff;
  for (const b of buf) {
    c = (crc ^ b) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0); ihdr.writeUInt32BE(SIZE, 4); ihdr[8] = 8; ihdr[9] = 6;
const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) Buffer.from(px.buffer, y * SIZE * 4, SIZE * 4).copy(raw, y * (SIZE * 4 + 1) + 1);
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../assets/logo.png', import.meta.url), png);
