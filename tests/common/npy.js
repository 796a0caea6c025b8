// .npy files as onnxruntime-node tensors, for the scripts that run ONNX Runtime as the tests'
// and the benchmark's peer (tests/onnx/real_models/ort_run.js, bench/models/ort_server.js):
// C order, little-endian; f32, f64, i64, i32, i16, u8, i8 and bool; 0-d arrays included.
'use strict';
const fs = require('fs');

const DESCR = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array],
  '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file, ort) {
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
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // data 64-byte aligned
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  let data;
  if (tensor.type === 'bool') data = Buffer.from(Array.from(tensor.data, (v) => (v ? 1 : 0)));
  else data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), data]));
}

module.exports = { readNpy, writeNpy };
