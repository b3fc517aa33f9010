// wheel-files.js: the files a wheel (a zip archive) holds, read here in JS, so that the
// engine's wheels are unpacked while the runtime is still being restored and the
// packages stage only writes them into site-packages (unpacking them in the runtime,
// through Python's zipfile, took 60-170 ms of the worker's critical path, traced).
//
// Only what a pure wheel holds is read: stored and deflated entries, no ZIP64, no
// encryption, every path inside the archive; anything else is refused with the
// entry's name. The caller checks the wheel's sha256 first.

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_ENTRY = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/**
 * Each file of the wheel, its path inside the archive and its bytes, in the
 * archive's order (directory entries left out).
 * @param {ArrayBuffer} buffer
 * @returns {Promise<Array<{path: string, bytes: Uint8Array}>>}
 */
export async function wheelFiles(buffer) {
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  // The end-of-directory record: 22 bytes, then a comment of at most 65,535 bytes.
  let end = -1;
  for (let at = buffer.byteLength - 22; at >= Math.max(0, buffer.byteLength - 22 - 0xffff); at -= 1) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error("not a zip archive (no end-of-directory record)");
  const count = view.getUint16(end + 10, true);
  const names = new TextDecoder("utf-8", { fatal: true });
  const entries = [];
  let at = view.getUint32(end + 16, true);
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > buffer.byteLength || view.getUint32(at, true) !== DIRECTORY_ENTRY) {
      throw new Error(`entry ${index + 1} of ${count} is not where the archive's directory says`);
    }
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const packedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const path = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (path.endsWith("/")) continue;
    if (path.startsWith("/") || path.split("/").some((part) => part === "" || part === "." || part === "..")) {
      throw new Error(`${path}: not a path inside the wheel`);
    }
    if (flags & 1) throw new Error(`${path}: encrypted`);
    if ([packedSize, size, local].includes(0xffffffff)) throw new Error(`${path}: ZIP64 entries are not read`);
    if (local + 30 > buffer.byteLength || view.getUint32(local, true) !== LOCAL_ENTRY) {
      throw new Error(`${path}: its data is not where the archive's directory says`);
    }
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + packedSize > buffer.byteLength) throw new Error(`${path}: cut short`);
    if (method !== STORED && method !== DEFLATED) throw new Error(`${path}: compression method ${method} is not read`);
    entries.push({ path, method, size, packed: bytes.subarray(start, start + packedSize) });
  }
  // Every entry inflated at once: one after the other, each waited for its turn on a
  // thread that the runtime's restoring keeps busy (traced: 130 ms more). Each is fed
  // to its inflater from a stream of its own bytes, not through a Blob: a Blob is
  // registered with the browser process and read back from it, which for the engine's
  // 98 entries cost 143 ms of the worker's thread during start-up (sampled on a cold
  // visit; 50-98 ms against 22-25 ms on an idle thread).
  return Promise.all(
    entries.map(async ({ path, method, size, packed }) => {
      let data = packed;
      if (method === DEFLATED) {
        const source = new ReadableStream({
          start(controller) {
            controller.enqueue(packed);
            controller.close();
          },
        });
        const inflated = source.pipeThrough(new DecompressionStream("deflate-raw"));
        data = new Uint8Array(await new Response(inflated).arrayBuffer());
      }
      if (data.length !== size) throw new Error(`${path}: unpacks to ${data.length} bytes, the archive says ${size}`);
      return { path, bytes: data };
    }),
  );
}
