// FileStore (file_store.h): POSIX file I/O, replay with checksum verification, compaction by
// atomic rename.
#include "core/storage/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/common/error.h"
#include "core/storage/crc32.h"

namespace optic {
namespace {

constexpr std::string_view kMagic = "OPTICDB1";
constexpr size_t kRecordHeader = 8;  // length + CRC

[[noreturn]] void ioFail(const std::string& what, const std::string& path) {
  fail(ErrorCode::kError, "cannot " + what + " " + path + ": " + std::strerror(errno));
}

void putU32(uint32_t v, std::string& out) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

uint32_t getU32(std::string_view in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  return v;
}

bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool syncData(int fd) {
#if defined(__APPLE__)
  return ::fsync(fd) == 0;
#else
  return ::fdatasync(fd) == 0;
#endif
}

std::string readAll(int fd, const std::string& path) {
  std::string data;
  char buf[1 << 16];
  if (::lseek(fd, 0, SEEK_SET) < 0) ioFail("seek", path);
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ioFail("read", path);
    if (n == 0) return data;
    data.append(buf, static_cast<size_t>(n));
  }
}

// Syncs the directory holding `path`, so a created or renamed entry survives a power loss.
void syncDirectory(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::string frame(std::string_view payload) {
  std::string rec;
  rec.reserve(kRecordHeader + payload.size());
  putU32(static_cast<uint32_t>(payload.size()), rec);
  putU32(crc32(payload), rec);
  rec.append(payload);
  return rec;
}

// Applies a batch to the image, keeping the live byte count.
class ImageApplier final : public WriteBatch::Handler {
 public:
  ImageApplier(KVStore& image, uint64_t& live) : image_(image), live_(live) {}
  void put(std::string_view key, std::string_view value) override {
    remove(key);
    image_.put(key, value);
    live_ += key.size() + value.size();
  }
  void erase(std::string_view key) override {
    remove(key);
    image_.erase(key);
  }
  void eraseRange(std::string_view begin, std::string_view end) override {
    auto it = image_.newIterator();
    it->seek(begin);
    while (it->valid() && it->key() < end) {
      std::string key(it->key());
      live_ -= key.size() + it->value().size();
      it->next();
      image_.erase(key);
    }
  }

 private:
  void remove(std::string_view key) {
    if (std::optional<std::string> old = image_.get(key)) live_ -= key.size() + old->size();
  }
  KVStore& image_;
  uint64_t& live_;
};

}  // namespace

FileStore::FileStore(std::string path, FileStoreOptions options)
    : path_(std::move(path)), options_(options), image_(newMemoryKVStore()) {}

std::unique_ptr<FileStore> FileStore::open(const std::string& path, FileStoreOptions options) {
  std::unique_ptr<FileStore> fs(new FileStore(path, options));
  ::unlink((path + ".compact").c_str());  // an interrupted compaction: the log is still whole
  fs->fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fs->fd_ < 0) ioFail("open", path);
  if (::flock(fs->fd_, LOCK_EX | LOCK_NB) != 0) {
    fail(ErrorCode::kError, "cannot open " + path + ": the database is in use by another process");
  }
  fs->load();
  return fs;
}

FileStore::~FileStore() {
  if (fd_ < 0) return;
  if (options_.durability == Durability::kRelaxed) syncData(fd_);
  ::close(fd_);
}

void FileStore::load() {
  std::string data = readAll(fd_, path_);
  std::string_view in = data;
  if (in.size() < kMagic.size() && kMagic.substr(0, in.size()) == in) {
    // New (or created but never completed): start the log.
    if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) < 0 || !writeAll(fd_, kMagic) || !syncData(fd_)) {
      ioFail("initialise", path_);
    }
    syncDirectory(path_);
    logBytes_ = kMagic.size();
    return;
  }
  if (in.substr(0, kMagic.size()) != kMagic) fail(ErrorCode::kError, "cannot open " + path_ + ": not an OpticDB database file");
  size_t good = kMagic.size();
  while (data.size() - good >= kRecordHeader) {
    uint32_t len = getU32(in.substr(good));
    uint32_t crc = getU32(in.substr(good + 4));
    if (len > data.size() - good - kRecordHeader) break;  // torn: the record's end never reached the disk
    std::string_view payload = in.substr(good + kRecordHeader, len);
    if (crc32(payload) != crc) break;
    WriteBatch batch;
    try {
      batch = WriteBatch::fromRep(std::string(payload));
    } catch (const Error&) {
      break;
    }
    applyToImage(batch);
    ++recovery_.records;
    good += kRecordHeader + len;
  }
  recovery_.droppedBytes = data.size() - good;
  if (recovery_.droppedBytes > 0) {
    if (::ftruncate(fd_, static_cast<off_t>(good)) != 0 || !syncData(fd_)) ioFail("truncate", path_);
  }
  logBytes_ = good;
  if (::lseek(fd_, static_cast<off_t>(good), SEEK_SET) < 0) ioFail("seek", path_);
  if (logBytes_ > options_.compactMinBytes && logBytes_ > options_.compactRatio * static_cast<double>(liveBytes_)) {
    compact();
  }
}

void FileStore::applyToImage(const WriteBatch& batch) {
  ImageApplier applier(*image_, liveBytes_);
  batch.iterate(applier);
}

void FileStore::appendRecord(std::string_view payload) {
  if (broken_) fail(ErrorCode::kError, "cannot write " + path_ + ": an earlier write failed");
  std::string rec = frame(payload);
  bool ok = writeAll(fd_, rec) && (options_.durability == Durability::kRelaxed || syncData(fd_));
  if (!ok) {
    int err = errno;
    // Take the partial record back off, so the log stays a sequence of whole records.
    if (::ftruncate(fd_, static_cast<off_t>(logBytes_)) != 0 || ::lseek(fd_, static_cast<off_t>(logBytes_), SEEK_SET) < 0) {
      broken_ = true;
    }
    errno = err;
    ioFail("write", path_);
  }
  logBytes_ += rec.size();
}

void FileStore::write(const WriteBatch& batch) {
  if (batch.empty()) return;
  appendRecord(batch.rep());
  applyToImage(batch);
  if (logBytes_ > options_.compactMinBytes && logBytes_ > options_.compactRatio * static_cast<double>(liveBytes_)) {
    try {
      compact();
    } catch (const Error&) {
      // The commit is durable in the log; compaction can wait for the next chance.
    }
  }
}

void FileStore::compact() {
  WriteBatch snapshot;
  auto it = image_->newIterator();
  for (it->seekToFirst(); it->valid(); it->next()) snapshot.put(it->key(), it->value());
  std::string tmp = path_ + ".compact";
  int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) ioFail("create", tmp);
  std::string rec = frame(snapshot.rep());
  bool ok = writeAll(fd, kMagic) && (snapshot.empty() || writeAll(fd, rec)) && syncData(fd);
  if (!ok || ::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::rename(tmp.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = err;
    ioFail("compact", path_);
  }
  syncDirectory(path_);
  ::close(fd_);
  fd_ = fd;
  logBytes_ = kMagic.size() + (snapshot.empty() ? 0 : rec.size());
  if (::lseek(fd_, static_cast<off_t>(logBytes_), SEEK_SET) < 0) broken_ = true;
}

}  // namespace optic
