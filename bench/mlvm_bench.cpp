// mlvm-bench --serve: the mlvm side of the benchmark, driven by bench.py over stdin/stdout so
// that one process launch serves every row and mlvm and the peer can alternate run by run.
//
// One command per line, words separated by spaces (paths must not contain spaces); every
// command gets exactly one reply line, "ok ..." or "error MESSAGE":
//   load ID THREADS PROGRAM INPUT_SPEC...  assemble/load PROGRAM once, make the inputs once
//   run ID BATCH                           -> ok SECONDS_PER_RUN LOOP_SECONDS PEAK_BYTES STEPS
//                                             ALLOCATED_BYTES
//   bind ID OUTPUT                         write OUTPUT into a buffer of its own from now on
//   dump ID OUTPUT PATH.npy                one untimed run; writes that output
//   describe ID OUTPUT                     one untimed run -> ok SHAPE STRIDES OFFSET MODE
//   free ID                                drop the case (its inputs and session)
//   quit
// PROGRAM may be .mlasm, .mlbc or .onnx (Program::load_file imports ONNX in memory).
//
// mlvm-bench --first-run THREADS PROGRAM INPUT_SPEC...: what a fresh process pays before its
// first result (bench/models/): loads and imports PROGRAM, makes a Session, makes the inputs,
// runs once, prints "ok LOAD_SECONDS SESSION_SECONDS RUN_SECONDS" and exits. LOAD is
// Program::load_file (read + import + verify + plan), SESSION the Session's construction
// (its thread pool), RUN the first Session::run.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_case.hpp"
#include "input_spec.hpp"

namespace {

using mlvm::bench::BenchCase;

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string need(std::istringstream& in, const char* what) {
  std::string w;
  if (!(in >> w)) throw mlvm::Error(mlvm::ErrorKind::usage, std::string("missing ") + what);
  return w;
}

class Server {
 public:
  // Returns false on quit.
  bool handle(const std::string& line, std::ostream& out) {
    std::istringstream in(line);
    std::string cmd;
    if (!(in >> cmd)) return true;  // blank line: nothing to answer
    if (cmd == "quit") return false;
    try {
      out << "ok" << execute(cmd, in) << "\n";
    } catch (const mlvm::Error& e) {
      out << "error " << one_line(e.describe()) << "\n";
    } catch (const std::exception& e) {
      out << "error " << one_line(e.what()) << "\n";
    }
    return true;
  }

 private:
  std::string execute(const std::string& cmd, std::istringstream& in) {
    if (cmd == "load") {
      const std::string id = need(in, "ID"), threads = need(in, "THREADS"),
                        program = need(in, "PROGRAM");
      std::vector<std::string> specs;
      for (std::string s; in >> s;) specs.push_back(s);
      cases_.erase(id);  // release the old case's memory before making the new one
      cases_[id] = std::make_unique<BenchCase>(program, std::stoi(threads), specs);
      return "";
    }
    BenchCase& c = find(need(in, "ID"));
    if (cmd == "run") {
      const mlvm::bench::Timing t = c.time(std::stoi(need(in, "BATCH")));
      char buf[200];
      std::snprintf(buf, sizeof buf, " %.9e %.9e %lld %lld %lld", t.seconds_per_run,
                    t.loop_seconds, static_cast<long long>(t.peak_bytes),
                    static_cast<long long>(t.steps), static_cast<long long>(t.allocated_bytes));
      return buf;
    }
    if (cmd == "dump") {
      const std::string output = need(in, "OUTPUT");
      c.dump(output, need(in, "PATH"));
      return "";
    }
    if (cmd == "describe") return " " + c.describe(need(in, "OUTPUT"));
    if (cmd == "bind") {
      c.bind(need(in, "OUTPUT"));
      return "";
    }
    if (cmd == "free") {
      for (auto it = cases_.begin(); it != cases_.end(); ++it)
        if (it->second.get() == &c) {
          cases_.erase(it);
          break;
        }
      return "";
    }
    throw mlvm::Error(mlvm::ErrorKind::usage, "unknown command " + cmd);
  }

  BenchCase& find(const std::string& id) {
    auto it = cases_.find(id);
    if (it == cases_.end()) throw mlvm::Error(mlvm::ErrorKind::usage, "no case " + id + " loaded");
    return *it->second;
  }

  std::map<std::string, std::unique_ptr<BenchCase>> cases_;
};

void usage(std::ostream& os) {
  os << "usage: mlvm-bench --serve\n"
        "       mlvm-bench --first-run THREADS PROGRAM INPUT_SPEC...\n"
        "  --serve serves benchmark commands on stdin/stdout for bench/bench.py and\n"
        "  bench/models/ (see bench/README.md); --first-run times one fresh load and run.\n";
}

int first_run(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  try {
    if (argc < 4) throw mlvm::Error(mlvm::ErrorKind::usage, "--first-run needs THREADS PROGRAM");
    auto t0 = Clock::now();
    const mlvm::Program program = mlvm::Program::load_file(argv[3]);
    const double load = since(t0);
    mlvm::SessionOptions options;
    options.threads = std::stoi(argv[2]);
    t0 = Clock::now();
    mlvm::Session session(program, options);
    const double make_session = since(t0);
    // Inputs by name, in the program's order (reading them is not the engine's cost).
    const std::vector<mlvm::ValueInfo> declared = program.inputs();
    std::vector<mlvm::Tensor> inputs(declared.size());
    for (int k = 4; k < argc; ++k) {
      auto [name, value] = mlvm::bench::make_input(argv[k]);
      for (std::size_t i = 0; i < declared.size(); ++i)
        if (declared[i].name == name) inputs[i] = std::move(value);
    }
    t0 = Clock::now();
    session.run_positional(std::span<const mlvm::Tensor>(inputs));
    std::printf("ok %.9e %.9e %.9e\n", load, make_session, since(t0));
    return 0;
  } catch (const mlvm::Error& e) {
    std::printf("error %s\n", one_line(e.describe()).c_str());
  } catch (const std::exception& e) {
    std::printf("error %s\n", one_line(e.what()).c_str());
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--first-run") return first_run(argc, argv);
  if (argc != 2 || std::string(argv[1]) != "--serve") {
    usage(argc == 2 && std::string(argv[1]) == "--help" ? std::cout : std::cerr);
    return argc == 2 && std::string(argv[1]) == "--help" ? 0 : 1;
  }
  Server server;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!server.handle(line, std::cout)) break;
    std::cout.flush();
  }
  return 0;
}
