#include "tensor/npz.hpp"

#include <zip.h>

#include <memory>
#include <new>
#include <set>

#include "tensor/error.hpp"
#include "tensor/file_read.hpp"
#include "tensor/npy.hpp"

namespace mlvm {

namespace {

struct ArchiveCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;
struct MemberCloser {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using Member = std::unique_ptr<zip_file_t, MemberCloser>;

// Room for a member's .npy header on top of its data, which is what the budget counts.
constexpr int64_t kHeaderSlack = int64_t(1) << 20;

Archive open_archive(const std::string& path, std::vector<uint8_t>& stdin_bytes,
                     int64_t max_bytes) {
  zip_error_t err;
  zip_error_init(&err);
  zip_t* z = nullptr;
  if (path == "-") {
    stdin_bytes = read_file_bounded(path, max_bytes, ".npz archive");
    zip_source_t* src = zip_source_buffer_create(stdin_bytes.data(), stdin_bytes.size(), 0, &err);
    if (src) {
      z = zip_open_from_source(src, ZIP_RDONLY, &err);
      if (!z) zip_source_free(src);
    }
  } else {
    // Refuses devices and pipes before libzip sees them: it would read an endless one.
    const InputFile check(path);
    int code = 0;
    z = zip_open(path.c_str(), ZIP_RDONLY, &code);
    if (!z) zip_error_init_with_code(&err, code);
  }
  if (!z) {
    std::string why = zip_error_strerror(&err);
    zip_error_fini(&err);
    throw Error(ErrorKind::malformed, ".npz: not a readable zip archive: " + why, path);
  }
  zip_error_fini(&err);
  return Archive(z);
}

// The bytes of one member, never more than it declared nor more than `max_bytes`.
std::vector<uint8_t> read_member(zip_t* z, zip_uint64_t index, const zip_stat_t& st,
                                 int64_t max_bytes, const std::string& where) {
  if (!(st.valid & ZIP_STAT_SIZE))
    throw Error(ErrorKind::malformed, ".npz: the member's size is unknown", where);
  if (st.size > zip_uint64_t(max_bytes))
    throw Error(ErrorKind::limit,
                ".npz: the member holds " + std::to_string(st.size) +
                    " bytes, more than the memory limit allows (" + std::to_string(max_bytes) +
                    " bytes)",
                where);
  Member f(zip_fopen_index(z, index, 0));
  if (!f)
    throw Error(ErrorKind::malformed,
                std::string(".npz: cannot open the member: ") + zip_strerror(z), where);
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(std::size_t(st.size));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::limit, ".npz: out of memory for " + std::to_string(st.size) + " bytes",
                where);
  }
  std::size_t got = 0;
  while (got < bytes.size()) {
    const zip_int64_t n = zip_fread(f.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0)
      throw Error(ErrorKind::malformed,
                  std::string(".npz: cannot inflate the member: ") + zip_file_strerror(f.get()),
                  where);
    if (n == 0) break;
    got += std::size_t(n);
  }
  uint8_t extra;
  if (got < bytes.size() || zip_fread(f.get(), &extra, 1) != 0)
    throw Error(ErrorKind::malformed,
                ".npz: the member does not inflate to the " + std::to_string(st.size) +
                    " bytes it declares",
                where);
  return bytes;
}

}  // namespace

NamedTensors load_npz(const std::string& path, std::shared_ptr<MemoryBudget> budget) {
  auto room = [&]() -> int64_t {
    if (!budget) return kDefaultMaxFileBytes;
    const int64_t free = budget->limit() - budget->live();
    return free > INT64_MAX - kHeaderSlack ? INT64_MAX : free + kHeaderSlack;
  };
  std::vector<uint8_t> stdin_bytes;
  Archive z = open_archive(path, stdin_bytes, room());
  const zip_int64_t count = zip_get_num_entries(z.get(), 0);
  NamedTensors out;
  std::set<std::string> seen;
  for (zip_int64_t k = 0; k < count; ++k) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z.get(), zip_uint64_t(k), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
      throw Error(ErrorKind::malformed,
                  ".npz: cannot read the directory entry of member " + std::to_string(k) + ": " +
                      zip_strerror(z.get()),
                  path);
    const std::string member = st.name;
    const std::string where = path + ": member " + member;
    if (member.size() <= 4 || member.compare(member.size() - 4, 4, ".npy") != 0)
      throw Error(ErrorKind::malformed, ".npz: a member is not NAME.npy", where);
    std::string name = member.substr(0, member.size() - 4);
    if (!seen.insert(name).second)
      throw Error(ErrorKind::malformed, ".npz: array " + name + " appears twice", where);
    std::vector<uint8_t> bytes = read_member(z.get(), zip_uint64_t(k), st, room(), where);
    try {
      out.emplace_back(std::move(name), parse_npy(bytes, budget));
    } catch (const Error& e) {
      throw Error(e.kind(), e.message(),
                  e.location().empty() ? where : where + ": " + e.location());
    }
  }
  return out;
}

void save_npz(const std::string& path, const NamedTensors& arrays, const std::vector<bool>& scalar) {
  std::set<std::string> seen;
  for (const auto& [name, t] : arrays) {
    if (name.empty()) fail(ErrorKind::usage, "save_npz: an array has an empty name");
    if (!seen.insert(name).second)
      fail(ErrorKind::usage, "save_npz: array " + name + " is given twice");
  }
  int code = 0;
  Archive z(zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
  auto io_error = [&](const std::string& why) {
    fail(ErrorKind::io, "cannot write " + path + ": " + why);
  };
  if (!z) {
    zip_error_t err;
    zip_error_init_with_code(&err, code);
    std::string why = zip_error_strerror(&err);
    zip_error_fini(&err);
    io_error(why);
  }
  // libzip reads the buffers at zip_close, so they live until then.
  std::vector<std::vector<uint8_t>> blobs;
  blobs.reserve(arrays.size());
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const auto& [name, t] = arrays[k];
    NpyWriteOptions options;
    options.scalar = k < scalar.size() && scalar[k];
    blobs.push_back(to_npy(t, options));
    zip_source_t* src = zip_source_buffer(z.get(), blobs.back().data(), blobs.back().size(), 0);
    if (!src) io_error(zip_strerror(z.get()));
    const zip_int64_t idx = zip_file_add(z.get(), (name + ".npy").c_str(), src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(src);
      io_error(zip_strerror(z.get()));
    }
    if (zip_set_file_compression(z.get(), zip_uint64_t(idx), ZIP_CM_STORE, 0) != 0)
      io_error(zip_strerror(z.get()));
  }
  if (zip_close(z.get()) != 0) io_error(zip_strerror(z.get()));
  (void)z.release();  // zip_close freed it
}

}  // namespace mlvm
