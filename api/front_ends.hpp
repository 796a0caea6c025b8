// The front ends' own entry points, for the tools that are their command-line faces: mlvm-asm
// (every diagnostic, the inferred types), mlvm-onnx and mlvm-cvm (an import's renamed names,
// its opset, the supported ops). Other code opens programs through open.hpp or the public
// API. The tools include this rather than a front end, so each reaches them through api/.
#pragma once

#include "assembler/assembler.hpp"
#include "cvm/importer.hpp"
#include "onnx/importer.hpp"
