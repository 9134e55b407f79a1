import { Worker } from 'node:worker_threads';

/** A PDF taking longer than this to read fails its job instead of holding a worker. */
export const PDF_TIMEOUT_MS = 60_000;
/** The heap a PDF's reading may use: a crafted file cannot take the server's memory. */
const PDF_HEAP_MB = 512;

/** What the worker answers: the text, or why there is none. */
type PdfAnswer = { ok: true; text: string } | { ok: false; error: string };

/**
 * The worker's program, plain CommonJS so that it runs the same from the build and under the
 * test runner. It is given the resolved path of pdf-parse: the require happens in the worker.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PDFParse } = require(workerData.pdfParse);
(async () => {
  const parser = new PDFParse({ data: workerData.data });
  try {
    const result = await parser.getText({ pageJoiner: '' });
    parentPort.postMessage({ ok: true, text: result.text });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  } finally {
    await parser.destroy().catch(() => undefined);
  }
})();
`;

/**
 * The text of a PDF, read by pdf-parse (pdf.js) in a worker thread of its own. Not in the
 * server's thread: pdf-parse's bundle installs core-js polyfills that replace globals such as
 * `JSON.parse` (every request body and model chunk would go through them), and a large or
 * hostile PDF would block the event loop every stream shares. The worker ends with the file;
 * its heap and its time are bounded. Rejects with pdf.js's reason when the file cannot be read.
 */
export function readPdfText(data: Buffer, timeoutMs = PDF_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // pdf.js takes ownership of the array it is given: a copy keeps the upload's buffer intact
      workerData: { pdfParse: require.resolve('pdf-parse'), data: new Uint8Array(data) },
      resourceLimits: { maxOldGenerationSizeMb: PDF_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    // pdf.js's console warnings stay out of the server's log
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`reading it took longer than ${timeoutMs / 1000} s`))), timeoutMs);
    worker.once('message', (answer: PdfAnswer) => settle(() => (answer.ok ? resolve(answer.text) : reject(new Error(answer.error)))));
    worker.once('error', (error) => settle(() => reject(error)));
    worker.once('exit', (code) => settle(() => reject(new Error(`the PDF reader stopped (exit code ${code})`))));
  });
}
