import type { Page } from '@playwright/test';

/**
 * A camera-like JPEG of `width`×`height` drawn in the page's canvas (no file
 * in the repository, no network): gradients and noise, so that it encodes to
 * megabytes and decodes as slowly as a real photo. For the photo e2e tests
 * and scripts/photo-speed.ts.
 */
export async function cameraJpeg(page: Page, width = 4000, height = 3000): Promise<Buffer> {
  // Page code as text: this file is type-checked without the DOM library (tsconfig.server.json), and tsx would wrap
  // named functions in a helper the page does not have.
  const base64 = await page.evaluate<string>(`(async () => {
    const w = ${width}, h = ${height};
    const canvas = document.createElement('canvas');
    canvas.width = w;
    canvas.height = h;
    const ctx = canvas.getContext('2d');
    const sky = ctx.createLinearGradient(0, 0, w, h);
    sky.addColorStop(0, '#3b6ea5');
    sky.addColorStop(0.5, '#d9c27a');
    sky.addColorStop(1, '#4a6b3a');
    ctx.fillStyle = sky;
    ctx.fillRect(0, 0, w, h);
    // Noise in tiles, repeated with offsets: detail everywhere, drawn in a fraction of a second.
    const tile = ctx.createImageData(256, 256);
    for (let i = 0; i < tile.data.length; i += 4) {
      const v = Math.random() * 90;
      tile.data[i] = v;
      tile.data[i + 1] = v * 0.8;
      tile.data[i + 2] = v * 0.6;
      tile.data[i + 3] = 70;
    }
    const noise = await createImageBitmap(tile);
    for (let y = 0; y < h; y += 256) for (let x = 0; x < w; x += 256) ctx.drawImage(noise, x + ((y / 256) % 3) * 17, y);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  })()`);
  return Buffer.from(base64, 'base64');
}
