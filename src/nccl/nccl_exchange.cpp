// nccl_exchange (gpuhash/nccl_exchange.hpp): NCCL communicators, streams
// and the all-to-all of a sharded_map's shards, one process driving every
// GPU of the host.

#include "gpuhash/nccl_exchange.hpp"

#include <nccl.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpuhash/cuda/error.hpp"
#include "gpuhash/detail/sharded/shard_threads.hpp"
#include "gpuhash/errors.hpp"

namespace gpuhash {

namespace {

void check_nccl(ncclResult_t code, const char* expression, const char* file, int line) {
  if (code != ncclSuccess)
    throw error(std::string("gpuhash: NCCL error ") + ncclGetErrorString(code) + " in `" +
                expression + "` at " + file + ":" + std::to_string(line));
}

/// For destructors, which must not throw: prints the error instead.
void report_nccl(ncclResult_t code, const char* expression) noexcept {
  if (code != ncclSuccess)
    std::fprintf(stderr, "gpuhash: NCCL error %s in `%s` (ignored in a destructor)\n",
                 ncclGetErrorString(code), expression);
}

#define GPUHASH_NCCL_TRY(call) check_nccl((call), #call, __FILE__, __LINE__)
#define GPUHASH_NCCL_REPORT(call) report_nccl((call), #call)

/// Puts the calling thread's current device back when it leaves scope: the
/// exchange switches devices on the caller's thread only for a moment.
class device_restorer {
 public:
  device_restorer() { GPUHASH_CUDA_TRY(cudaGetDevice(&device_)); }
  ~device_restorer() { GPUHASH_CUDA_REPORT(cudaSetDevice(device_)); }
  device_restorer(const device_restorer&) = delete;
  device_restorer& operator=(const device_restorer&) = delete;

 private:
  int device_ = 0;
};

std::vector<int> first_devices(std::size_t shards) {
  const std::size_t available = nccl_exchange::device_count();
  if (shards > available)
    throw error("gpuhash::nccl_exchange: " + std::to_string(shards) + " shards need " +
                std::to_string(shards) + " GPUs; this process sees " + std::to_string(available));
  std::vector<int> devices(shards);
  for (std::size_t g = 0; g < shards; ++g) devices[g] = static_cast<int>(g);
  return devices;
}

/// A batch's buffers are allocated from the device's default memory pool
/// (cudaMallocAsync) and freed when the batch ends. With the pool's release
/// threshold at its default, 0, every synchronization hands the freed memory
/// back to the driver, so each batch of a billion keys maps gigabytes of
/// fresh pages again. The exchange raises the threshold to "keep
/// everything", as a caching allocator does, unless the caller has set one
/// of their own; cudaMemPoolTrimTo gives the memory back.
void keep_freed_memory(int device) {
  cudaMemPool_t pool = nullptr;
  GPUHASH_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t threshold = 0;
  GPUHASH_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  if (threshold != 0) return;
  threshold = std::numeric_limits<std::uint64_t>::max();
  GPUHASH_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

const unsigned char* bytes(const void* pointer) {
  return static_cast<const unsigned char*>(pointer);
}
unsigned char* bytes(void* pointer) {
  return static_cast<unsigned char*>(pointer);
}

}  // namespace

struct nccl_exchange::state {
  explicit state(std::vector<int> device_list)
      : threads(device_list.size()),
        devices(std::move(device_list)),
        streams(devices.size(), nullptr),
        comms(devices.size(), nullptr) {}

  // Streams are synchronized before the communicators end, and those before
  // the streams they ran on are destroyed.
  ~state() {
    try {
      const device_restorer restore;
      for (std::size_t g = 0; g < devices.size(); ++g) {
        if (streams[g] == nullptr) continue;
        GPUHASH_CUDA_REPORT(cudaSetDevice(devices[g]));
        GPUHASH_CUDA_REPORT(cudaStreamSynchronize(streams[g]));
      }
      if (std::all_of(comms.begin(), comms.end(), [](ncclComm_t c) { return c != nullptr; })) {
        // One thread finalizes every communicator: in one group, as NCCL
        // asks when one thread drives several devices.
        GPUHASH_NCCL_REPORT(ncclGroupStart());
        for (const ncclComm_t comm : comms) GPUHASH_NCCL_REPORT(ncclCommFinalize(comm));
        GPUHASH_NCCL_REPORT(ncclGroupEnd());
        for (const ncclComm_t comm : comms) GPUHASH_NCCL_REPORT(ncclCommDestroy(comm));
      }
      for (std::size_t g = 0; g < devices.size(); ++g) {
        if (streams[g] == nullptr) continue;
        GPUHASH_CUDA_REPORT(cudaSetDevice(devices[g]));
        GPUHASH_CUDA_REPORT(cudaStreamDestroy(streams[g]));
      }
    } catch (...) {  // cudaGetDevice failed: the runtime is gone, nothing left to free
    }
  }
  state(const state&) = delete;
  state& operator=(const state&) = delete;

  detail::shard_threads threads;  // first: its threads end last, after the cleanup above
  std::vector<int> devices;
  std::vector<cudaStream_t> streams;
  std::vector<ncclComm_t> comms;
};

nccl_exchange::nccl_exchange(std::vector<int> devices) {
  if (devices.empty())
    throw std::invalid_argument("gpuhash::nccl_exchange: needs at least one GPU");
  const std::size_t available = device_count();
  for (std::size_t g = 0; g < devices.size(); ++g) {
    if (devices[g] < 0 || static_cast<std::size_t>(devices[g]) >= available)
      throw std::invalid_argument("gpuhash::nccl_exchange: device " + std::to_string(devices[g]) +
                                  " does not exist; this process sees " +
                                  std::to_string(available) + " GPUs");
    if (std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(g), devices[g]) !=
        devices.begin() + static_cast<std::ptrdiff_t>(g))
      throw std::invalid_argument("gpuhash::nccl_exchange: device " + std::to_string(devices[g]) +
                                  " named twice (one shard per GPU)");
  }
  // NVLink multicast stays off (the GPU machines require it; never enable
  // it): NCCL reads this when it first initializes in the process.
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);

  auto s = std::make_unique<state>(std::move(devices));
  {
    const device_restorer restore;
    for (std::size_t g = 0; g < s->devices.size(); ++g) {
      GPUHASH_CUDA_TRY(cudaSetDevice(s->devices[g]));
      GPUHASH_CUDA_TRY(cudaStreamCreate(&s->streams[g]));
      keep_freed_memory(s->devices[g]);
    }
  }
  const ncclResult_t initialized =
      ncclCommInitAll(s->comms.data(), static_cast<int>(s->devices.size()), s->devices.data());
  if (initialized != ncclSuccess) {
    // What a failed initialization left in the array is no communicator to
    // finalize: the state's cleanup must skip them.
    std::fill(s->comms.begin(), s->comms.end(), nullptr);
    check_nccl(initialized, "ncclCommInitAll", __FILE__, __LINE__);
  }
  state_ = std::move(s);
}

nccl_exchange::nccl_exchange(std::size_t shards) : nccl_exchange(first_devices(shards)) {}

nccl_exchange::~nccl_exchange() = default;
nccl_exchange::nccl_exchange(nccl_exchange&&) noexcept = default;
nccl_exchange& nccl_exchange::operator=(nccl_exchange&&) noexcept = default;

std::size_t nccl_exchange::shard_count() const noexcept {
  return state_->devices.size();
}
int nccl_exchange::device(std::size_t shard) const {
  return state_->devices.at(shard);
}
cudaStream_t nccl_exchange::stream(std::size_t shard) const {
  return state_->streams.at(shard);
}

std::size_t nccl_exchange::device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error to keep
    return 0;
  }
  return static_cast<std::size_t>(count);
}

void nccl_exchange::run_on_devices(const std::function<void(std::size_t)>& task) {
  state_->threads.run([&](std::size_t g) {
    GPUHASH_CUDA_TRY(cudaSetDevice(state_->devices[g]));
    task(g);
  });
}

void nccl_exchange::all_to_all_bytes(const exchange_plan& plan, std::span<const void* const> send,
                                     std::span<void* const> receive, std::size_t element_bytes) {
  const auto& streams = state_->streams;
  const auto& comms = state_->comms;
  const std::vector<exchange_piece> pieces = plan.pieces(element_bytes);

  // A shard's part for itself: a copy on its own device and stream.
  {
    const device_restorer restore;
    for (const exchange_piece& piece : pieces) {
      if (piece.from != piece.to) continue;
      GPUHASH_CUDA_TRY(cudaSetDevice(state_->devices[piece.from]));
      GPUHASH_CUDA_TRY(cudaMemcpyAsync(bytes(receive[piece.to]) + piece.receive_offset,
                                       bytes(send[piece.from]) + piece.send_offset, piece.bytes,
                                       cudaMemcpyDeviceToDevice, streams[piece.from]));
    }
  }

  // Every other piece: a send on its source's communicator and stream and
  // the matching receive on its destination's, all in one group over every
  // communicator, as NCCL requires when one thread drives several devices
  // (each call would otherwise wait for its peer's). One piece per ordered
  // pair of shards, so the sends and receives of a pair match one to one.
  // Bytes travel as ncclUint8: any element type.
  ncclResult_t first_error = ncclSuccess;
  const auto keep = [&](ncclResult_t code) {
    if (first_error == ncclSuccess) first_error = code;
  };
  GPUHASH_NCCL_TRY(ncclGroupStart());
  for (const exchange_piece& piece : pieces) {
    if (piece.from == piece.to) continue;
    keep(ncclSend(bytes(send[piece.from]) + piece.send_offset, piece.bytes, ncclUint8,
                  static_cast<int>(piece.to), comms[piece.from], streams[piece.from]));
    keep(ncclRecv(bytes(receive[piece.to]) + piece.receive_offset, piece.bytes, ncclUint8,
                  static_cast<int>(piece.from), comms[piece.to], streams[piece.to]));
  }
  keep(ncclGroupEnd());  // ends the group even when a call in it failed
  GPUHASH_NCCL_TRY(first_error);
}

}  // namespace gpuhash
