#pragma once
// The tables the Python extension exposes, behind interfaces free of
// templates, so that the nanobind layer (module.cpp, string_table.cpp) is
// written once for every design, width and backend. Implementations:
// map_model.hpp, string_map_model.hpp and static_hashgraph_model.hpp,
// instantiated per backend (tables_cpu.cpp, tables_cuda.cpp,
// static_hashgraph_cuda.cu; the maps of key_type_maps.hpp in
// key_type_maps{,_bucketed_cuckoo}_cpu.cpp and
// key_type_maps{,_bucketed_cuckoo}_cuda.cu).
//
// Pointers are backend memory: host memory for the CPU backend, device
// memory of the table's GPU for the CUDA backend. `stream` is a cudaStream_t
// as an integer for the CUDA backend and ignored by the CPU backend. Every
// call returns when its results are written.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpuhash/operation.hpp"
#include "gpuhash/status.hpp"
#include "gpuhash/string_keys.hpp"
#include "gpuhash/table_options.hpp"

namespace gpuhash::python {

enum class device_kind { cpu, cuda };

/// Where a table lives: the CPU, or one GPU by its CUDA ordinal.
struct device_spec {
  device_kind kind = device_kind::cpu;
  int ordinal = 0;
};

using stream_handle = std::uintptr_t;

/// The calls whose bare C++ time the Python overhead is measured against.
enum class bulk_call { insert, find };

/// The widths of a map's keys and values, in bytes.
struct item_widths {
  std::size_t key;
  std::size_t value;
};

/// A basic_map of one design at one pair of key and value widths on one
/// backend. Keys and values are passed as their bytes, whatever their dtype:
/// float32 and uint32 share one table. Calls are serialized by the model
/// (one table is used from one stream at a time).
class map_interface {
 public:
  virtual ~map_interface() = default;

  virtual void insert(const void* keys, const void* values, std::size_t n, status* statuses,
                      stream_handle stream) = 0;
  virtual void insert_or_assign(const void* keys, const void* values, std::size_t n,
                                status* statuses, stream_handle stream) = 0;
  /// found[i] tells whether keys[i] is stored; values[i] is written where it is.
  virtual void find(const void* keys, std::size_t n, void* values, bool* found,
                    stream_handle stream) = 0;
  virtual void contains(const void* keys, std::size_t n, bool* found, stream_handle stream) = 0;
  virtual void erase(const void* keys, std::size_t n, status* statuses, stream_handle stream) = 0;
  /// values_out starts as a copy of values_in; searches that find their key
  /// overwrite their element.
  virtual void apply(const operation* ops, const void* keys, const void* values_in,
                     void* values_out, std::size_t n, status* statuses, stream_handle stream) = 0;

  virtual std::size_t size(stream_handle stream) = 0;
  /// Writes every pair to arrays of `room` elements; throws if the table
  /// holds more than that. Returns the number written.
  virtual std::size_t retrieve_all(void* keys, void* values, std::size_t room,
                                   stream_handle stream) = 0;
  virtual void clear(stream_handle stream) = 0;
  virtual void reserve(std::size_t n, stream_handle stream) = 0;
  virtual std::size_t capacity() const = 0;
  virtual std::size_t memory_bytes() const = 0;
  virtual float max_load_factor() const = 0;
  /// The keys the design keeps as sentinels, one after the other, each as
  /// its key_width bytes.
  virtual std::vector<unsigned char> reserved_keys() const = 0;
  /// A new ref of the table (gpuhash/map_ref.hpp) as its bytes, for a
  /// kernel compiled at run time that names its type as ref_types() does;
  /// std::invalid_argument where ref_types() has no entry for the map. The
  /// ref is valid until the table's next call that may rebuild or grow it.
  virtual std::vector<unsigned char> ref_bytes() = 0;

  /// The seconds of each of `repeats` synchronous basic_map calls on the
  /// given arrays, into outputs the caller allocated once (so that no
  /// allocation between runs changes the GPU's state for the next one), timed
  /// on the host clock as Python times a call; the map is cleared before
  /// each insert. What the Python layer adds is measured against it
  /// (bench/python/overhead.py).
  virtual std::vector<double> time_bulk_call(bulk_call call, const void* keys, const void* values,
                                             void* found_values, status* statuses, std::size_t n,
                                             int repeats, stream_handle stream) = 0;
};

/// HashGraph's static map (CSR segments), built in one batch and then queried.
class static_map_interface {
 public:
  virtual ~static_map_interface() = default;
  virtual void build(const void* keys, const void* values, std::size_t n, stream_handle stream) = 0;
  virtual void find(const void* keys, std::size_t n, void* values, bool* found, bool binned_probe,
                    stream_handle stream) const = 0;
  virtual std::size_t size() const = 0;
  virtual std::size_t memory_bytes() const = 0;
};

/// HashGraph's static set (CSR segments).
class static_set_interface {
 public:
  virtual ~static_set_interface() = default;
  virtual void build(const void* keys, std::size_t n, stream_handle stream) = 0;
  virtual void contains(const void* keys, std::size_t n, bool* found, bool binned_probe,
                        stream_handle stream) const = 0;
  virtual std::size_t size() const = 0;
  virtual std::size_t memory_bytes() const = 0;
};

/// gpuhash::string_map with 32- or 64-bit values on one backend: byte-string
/// keys as Arrow's columns (string_column, in backend memory), values passed
/// as their bits. Calls are serialized by the model.
class string_map_interface {
 public:
  virtual ~string_map_interface() = default;

  virtual void insert(const string_column& keys, const void* values, status* statuses,
                      stream_handle stream) = 0;
  virtual void insert_or_assign(const string_column& keys, const void* values, status* statuses,
                                stream_handle stream) = 0;
  /// found[i] tells whether keys[i] is stored; values[i] is written where it is.
  virtual void find(const string_column& keys, void* values, bool* found, stream_handle stream) = 0;
  virtual void erase(const string_column& keys, status* statuses, stream_handle stream) = 0;

  /// Every stored pair, in host memory: size() + 1 offsets into `bytes`, and
  /// the values' bits (value_bytes() each).
  struct contents {
    std::vector<std::int64_t> offsets;
    std::vector<char> bytes;
    std::vector<unsigned char> values;
  };
  virtual contents retrieve_all(stream_handle stream) = 0;

  virtual std::size_t size(stream_handle stream) = 0;
  virtual void clear(stream_handle stream) = 0;
  /// Room for `keys` keys in all and `bytes` more key bytes.
  virtual void reserve(std::size_t keys, std::size_t bytes, stream_handle stream) = 0;
  virtual std::size_t capacity() const = 0;
  virtual std::size_t arena_capacity() const = 0;
  virtual std::size_t memory_bytes() const = 0;
  virtual float max_load_factor() const = 0;
};

/// A map's ref type (gpuhash/map_ref.hpp) as a kernel compiled at run time
/// names it (device_refs.hpp).
struct ref_type_info {
  std::string design;
  item_widths widths;
  std::string cuda_type;  ///< "gpuhash::linear_probing_ref<std::uint32_t, std::uint32_t>"
  std::string header;     ///< the header that declares it, "gpuhash/linear_probing_ref.hpp"
  std::size_t bytes;      ///< its sizeof
  std::size_t alignment;  ///< its alignof
};

/// The designs of support/designs.hpp, in its order, each named once.
std::vector<std::string> design_names();

/// One design at one pair of widths that make_map makes.
struct map_shape {
  std::string design;
  item_widths widths;
};
/// Every design at every pair of widths make_map makes, in the registry's
/// order: every design at 4/4 and 8/8 bytes (the library's precompiled
/// tables), and the designs that take the key types at the pairs of
/// key_type_maps.hpp.
std::vector<map_shape> map_shapes();

/// The maps whose refs Python hands out (gpuhash.DeviceRef), one entry per
/// design and pair of widths; the same on every backend (a map's ref type
/// does not depend on it).
std::vector<ref_type_info> ref_types();

/// A map of `design` with keys and values of `widths`; throws
/// std::invalid_argument naming the designs that take those widths when
/// there is no such map.
std::unique_ptr<map_interface> make_map(std::string_view design, item_widths widths,
                                        device_spec device, const table_options& options);
/// A string_map with `value_bits`-bit values (32 or 64) and room for
/// `arena_bytes` key bytes at the start.
std::unique_ptr<string_map_interface> make_string_map(int value_bits, device_spec device,
                                                      const table_options& options,
                                                      std::size_t arena_bytes);
std::unique_ptr<static_map_interface> make_static_map(int bits, device_spec device);
std::unique_ptr<static_set_interface> make_static_set(int bits, device_spec device);

/// Whether the extension was built with the CUDA backend, and whether a GPU
/// can be used now.
bool built_with_cuda();
bool cuda_available();

}  // namespace gpuhash::python
