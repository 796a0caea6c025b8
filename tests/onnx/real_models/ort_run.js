// The reference side of the real-model corpus (tests/onnx/real_models_test.py): runs models in
// ONNX Runtime (npm onnxruntime-node, found through NODE_PATH) fed by their ONNX input names,
// and writes every output under its ONNX name.
//
//   node ort_run.js JOBS.json
//
// JOBS.json is a list of {"model": PATH, "runs": [{"inputs": {NAME: NPY_PATH, ...},
// "outdir": DIR}, ...]}. For each job one session is created (1 thread, graph optimizations
// on, as applications run it) and run once per entry of "runs", each output written as
// DIR/out_K.npy; DIR/outputs.json lists [[NAME, "out_K.npy"], ...] in the session's output
// order. A run that fails writes DIR/error.txt and the others still run. Dtypes: float32, float64, int64, int32, int16, uint8, int8,
// bool (C-order .npy, little-endian, 0-d included).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const DESCR = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array],
  '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(file + ': Fortran order');
  const descr = header.match(/'descr':\s*'([^']*)'/)[1];
  if (!(descr in DESCR)) throw new Error(file + ': dtype ' + descr + ' not handled');
  const [type, Ctor] = DESCR[descr];
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',')
    .map((s) => s.trim()).filter((s) => s.length).map(Number);
  const body = buf.buffer.slice(buf.byteOffset + start + headerLen, buf.byteOffset + buf.length);
  let data = new Ctor(body);  // a copy of the bytes: aligned
  if (type === 'bool') data = Array.from(data, (v) => v !== 0);
  return new ort.Tensor(type, data, shape);
}

function writeNpy(file, tensor) {
  const entry = Object.entries(DESCR).find(([, [t]]) => t === tensor.type);
  if (!entry) throw new Error('output type ' + tensor.type + ' not handled');
  const dims = tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',' : '');
  let header = "{'descr': '" + entry[0] + "', 'fortran_order': False, 'shape': (" + dims + '), }';
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  let data;
  if (tensor.type === 'bool') data = Buffer.from(Array.from(tensor.data, (v) => (v ? 1 : 0)));
  else data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  let failed = 0;
  for (const job of jobs) {
    // A job is one run, or several on one session ("runs": [{inputs, outdir}, ...]).
    const runs = job.runs || [{ inputs: job.inputs, outdir: job.outdir }];
    let session = null;
    try {
      session = await ort.InferenceSession.create(job.model, {
        executionMode: 'sequential', intraOpNumThreads: 1, interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
      });
    } catch (e) {
      for (const run of runs) {
        fs.mkdirSync(run.outdir, { recursive: true });
        fs.writeFileSync(path.join(run.outdir, 'error.txt'), String(e.stack || e));
      }
      failed += runs.length;
      continue;
    }
    for (const run of runs) {
      fs.mkdirSync(run.outdir, { recursive: true });
      try {
        const feeds = {};
        for (const [name, file] of Object.entries(run.inputs)) feeds[name] = readNpy(file);
        const result = await session.run(feeds);
        const listing = session.outputNames.map((name, k) => {
          writeNpy(path.join(run.outdir, `out_${k}.npy`), result[name]);
          return [name, `out_${k}.npy`];
        });
        fs.writeFileSync(path.join(run.outdir, 'outputs.json'), JSON.stringify(listing));
      } catch (e) {
        failed++;
        fs.writeFileSync(path.join(run.outdir, 'error.txt'), String(e.stack || e));
      }
    }
    await session.release();
  }
  process.stdout.write(`ort ${ort.env.versions ? JSON.stringify(ort.env.versions) : ''} ${jobs.length} models, ${failed} runs failed\n`);
}

main().catch((e) => { process.stderr.write(String(e.stack || e) + '\n'); process.exit(1); });
