// The ONNX Runtime side of the whole-model benchmark (bench/models/), run with Debian's nodejs
// and npm's onnxruntime-node (found through NODE_PATH). One process serves one model at one
// thread count, so bench/models/driver.py can interleave its runs with mlvm's and torch's.
//
//   node ort_server.js MODEL.onnx THREADS INPUT.npy            serve (protocol below)
//   node ort_server.js MODEL.onnx THREADS INPUT.npy --first-run
//       create the session, run once, print "ok CREATE_SECONDS RUN_SECONDS" and exit
//
// Serving: prints "ready CREATE_SECONDS" once the session exists, then answers one line per
// command: "run" -> "ok SECONDS" (the awaited session.run alone), "dump PATH.npy" -> "ok"
// (one untimed run, the first output written as float32 .npy), "quit" ends it. Errors are
// "error MESSAGE". The model's one input is fed from INPUT.npy (float32, C order).
'use strict';
const fs = require('fs');
const readline = require('readline');
const ort = require('onnxruntime-node');

function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(path + ': not a .npy file');
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12);
  const header = buf.toString('latin1', start, start + headerLen);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error(path + ': expected a C-order float32 array, got ' + header.trim());
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',')
    .map((s) => s.trim()).filter((s) => s.length).map(Number);
  const dataStart = start + headerLen;
  // A copy: the data of a .npy need not be 4-byte aligned inside the file's buffer.
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + dataStart, buf.byteOffset + buf.length));
  return new ort.Tensor('float32', data, shape);
}

function writeNpy(path, tensor) {
  if (tensor.type !== 'float32') throw new Error('output is ' + tensor.type + ', not float32');
  const dims = tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',' : '');
  let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + '), }';
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // data 64-byte aligned
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(path, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

async function main() {
  const [modelPath, threadsText, inputPath, mode] = process.argv.slice(2);
  if (!inputPath) throw new Error('usage: node ort_server.js MODEL.onnx THREADS INPUT.npy [--first-run]');
  const threads = Number(threadsText);
  let t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(modelPath, {
    executionMode: 'sequential',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const create = seconds(t0);
  const feeds = { [session.inputNames[0]]: readNpy(inputPath) };
  const output = session.outputNames[0];
  if (mode === '--first-run') {
    t0 = process.hrtime.bigint();
    await session.run(feeds);
    process.stdout.write(`ok ${create} ${seconds(t0)}\n`);
    return;
  }
  process.stdout.write(`ready ${create}\n`);
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    const [cmd, arg] = line.trim().split(/\s+/);
    try {
      if (cmd === 'quit') break;
      if (cmd === 'run') {
        t0 = process.hrtime.bigint();
        await session.run(feeds);
        process.stdout.write(`ok ${seconds(t0)}\n`);
      } else if (cmd === 'dump') {
        const result = await session.run(feeds);
        writeNpy(arg, result[output]);
        process.stdout.write('ok\n');
      } else {
        process.stdout.write(`error unknown command ${cmd}\n`);
      }
    } catch (e) {
      process.stdout.write(`error ${String(e.message || e).replace(/\n/g, ' ')}\n`);
    }
  }
  rl.close();
  await session.release();
}

main().catch((e) => {
  process.stdout.write(`error ${String(e.message || e).replace(/\n/g, ' ')}\n`);
  process.exit(1);
});
