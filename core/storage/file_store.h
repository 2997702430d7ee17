// FileStore: the native durable copy of a database: one append-only log file of checksummed
// commit records, compacted by rewriting it as a single snapshot record.
//
// File layout: the 8-byte magic "OPTICDB1", then records, each
//   u32 length (little-endian) | u32 CRC-32 of the payload | payload = WriteBatch::rep()
// One commit is one record, so a commit is on disk entirely or not at all: open() replays
// records in order and stops at the first one that is truncated, fails its checksum or does not
// decode, truncates the file there (that tail was never acknowledged as committed, or is
// corrupt) and reports how many bytes it dropped. Records after a bad one are never applied.
//
// Durability: kStrict fdatasync()s after every appended record before write() returns;
// kRelaxed leaves the record in the OS page cache (survives a process crash, not a power loss)
// and syncs once on close. Compaction writes "<path>.compact", syncs it, renames it over the log
// and syncs the directory, so a crash at any point leaves either the old log or the new one.
//
// The replayed contents are kept as an in-memory ordered image (contents()): opening hydrates
// the engine from it, and compaction writes it out. One process at a time: open() takes an
// exclusive flock on the file.
//
// This is the one POSIX-dependent file of core/ (open/fdatasync/flock/rename): durable file I/O
// has no standard C++ form.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/storage/kv_store.h"
#include "core/storage/persistence.h"

namespace optic {

struct FileStoreOptions {
  Durability durability = Durability::kStrict;
  // Compact when the log exceeds both this size and `compactRatio` times the live data.
  uint64_t compactMinBytes = 4u << 20;
  double compactRatio = 2.0;
};

// What open() found in the file.
struct FileStoreRecovery {
  uint64_t records = 0;       // commit records applied
  uint64_t droppedBytes = 0;  // torn or corrupt tail removed
};

class FileStore final : public PersistenceSink {
 public:
  // Opens or creates the file; throws Error when it cannot (or when it is not an OpticDB file,
  // or another process holds it).
  static std::unique_ptr<FileStore> open(const std::string& path, FileStoreOptions options = {});
  ~FileStore() override;
  FileStore(const FileStore&) = delete;
  FileStore& operator=(const FileStore&) = delete;

  // Appends the batch as one record (and syncs it in strict mode), then applies it to the image.
  // Throws Error on an I/O failure, leaving file and image as they were.
  void write(const WriteBatch& batch) override;

  const KVStore& contents() const { return *image_; }
  const FileStoreRecovery& recovery() const { return recovery_; }
  uint64_t logBytes() const { return logBytes_; }

  // Rewrites the log as one snapshot record of contents().
  void compact();

 private:
  FileStore(std::string path, FileStoreOptions options);
  void load();
  void applyToImage(const WriteBatch& batch);
  void appendRecord(std::string_view payload);

  std::string path_;
  FileStoreOptions options_;
  int fd_ = -1;
  std::unique_ptr<KVStore> image_;
  uint64_t logBytes_ = 0;   // file size
  uint64_t liveBytes_ = 0;  // key + value bytes of the image
  bool broken_ = false;     // a failed append could not be undone: refuse further writes
  FileStoreRecovery recovery_;
};

}  // namespace optic
