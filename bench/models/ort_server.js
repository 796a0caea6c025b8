// The ONNX Runtime side of the whole-model benchmark (bench/models/), run with Debian's nodejs
// and npm's onnxruntime-node (found through NODE_PATH). One process serves one model at one
// thread count, so bench/models/driver.py can interleave its runs with mlvm's and torch's.
//
//   node ort_server.js MODEL.onnx THREADS INPUT.npy|INPUTS.json            serve (protocol below)
//   node ort_server.js MODEL.onnx THREADS INPUT.npy|INPUTS.json --first-run
//       create the session, run once, print "ok CREATE_SECONDS RUN_SECONDS" and exit
//
// Serving: prints "ready CREATE_SECONDS" once the session exists, then answers one line per
// command: "run" -> "ok SECONDS" (the awaited session.run alone), "dump PATH.npy" -> "ok"
// (one untimed run, the first output written as .npy), "quit" ends it. Errors are
// "error MESSAGE". INPUT.npy feeds the model's first input; INPUTS.json maps input names to
// .npy files (tests/common/npy.js reads them: any of its dtypes, 0-d included).
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require('onnxruntime-node');

const { readNpy, writeNpy } = require(path.join(__dirname, '..', '..', 'tests', 'common', 'npy.js'));

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
  // INPUT.npy feeds the model's first input; INPUTS.json ({"NAME": "PATH.npy", ...}) feeds
  // inputs by name (the real application models of bench/models/apps.py).
  const feeds = {};
  if (inputPath.endsWith('.json')) {
    for (const [name, file] of Object.entries(JSON.parse(fs.readFileSync(inputPath, 'utf8'))))
      feeds[name] = readNpy(file, ort);
  } else {
    feeds[session.inputNames[0]] = readNpy(inputPath, ort);
  }
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
