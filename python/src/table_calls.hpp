#pragma once
// What every model of a growing table (map_model, string_map_model) keeps
// beside its table: the table's device, the stream its calls run on, and the
// lock that makes calls from several Python threads take turns. Included by
// one file per backend, after that backend's backend_support.

#include <mutex>
#include <optional>

#include "backend_support.hpp"
#include "tables.hpp"

namespace gpuhash::python {

template <class Backend>
class table_calls {
 protected:
  using support = backend_support<Backend>;
  using device_scope = typename support::device_scope;

  /// Makes the call stream on `ordinal`'s device; the derived model makes
  /// its table after this.
  explicit table_calls(int ordinal) : ordinal_(ordinal) {
    const device_scope scope(ordinal_);
    streams_.emplace();
  }
  /// Runs after the derived model has freed its table (which synchronizes
  /// the stream it used), so the stream goes last, on its own device.
  ~table_calls() {
    try {
      const device_scope scope(ordinal_);
      streams_.reset();
    } catch (...) {  // a destructor must not throw; the runtime has reported the error
    }
  }
  table_calls(const table_calls&) = delete;
  table_calls& operator=(const table_calls&) = delete;

  /// One call at a time (Python threads may call while the GIL is released),
  /// with the table's device current.
  struct call {
    explicit call(const table_calls& calls) : lock(calls.mutex_), scope(calls.ordinal_) {}
    std::lock_guard<std::mutex> lock;
    device_scope scope;
  };

  /// The table's stream, ordered after the caller's.
  auto after(stream_handle caller) const { return streams_->after(caller); }

  int ordinal_;
  mutable std::mutex mutex_;

 private:
  std::optional<typename support::call_stream> streams_;
};

}  // namespace gpuhash::python
