// The command-line parse the module tools (mlvm-asm, mlvm-dis, mlvm-onnx, mlvm-cvm,
// mlvm-quantize) share: the visible options plus every positional argument under
// `positional`, options never abbreviated, and a parse error reported as
// "TOOL: message / Try 'TOOL --help'." on stderr.
#pragma once

#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace mlvm::tools {

// False (after the message) when the command line does not parse.
inline bool parse_args(const char* tool, int argc, char** argv,
                       const boost::program_options::options_description& visible,
                       const char* positional, boost::program_options::variables_map& vm) {
  namespace po = boost::program_options;
  po::options_description all;
  all.add(visible).add_options()(positional, po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add(positional, -1);
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos)
                  .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
                  .run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << tool << ": " << e.what() << "\nTry '" << tool << " --help'.\n";
    return false;
  }
  return true;
}

}  // namespace mlvm::tools
