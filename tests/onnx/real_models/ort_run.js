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

const { readNpy, writeNpy } = require(path.join(__dirname, '..', '..', 'common', 'npy.js'));

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
        for (const [name, file] of Object.entries(run.inputs)) feeds[name] = readNpy(file, ort);
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
