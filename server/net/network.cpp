// The network's listeners and workers (network.hpp); a worker's loop is in
// worker.cpp, a connection's reading and writing in connection_io.cpp.

#include "net/network.hpp"

#include <unistd.h>

#include <ctime>

#include "net/connection_memory.hpp"
#include "net/worker.hpp"

namespace gpuhash::server::net {

network::network(const network_settings& settings, network_resources resources,
                 engine::server_stats& stats)
    : settings_(settings),
      resources_(resources),
      stats_(stats),
      budget_(settings_.memory_limit, connection_allowance,
              largest_reply(settings_.limits.item_size_max), stats.connections.buffer_bytes,
              stats.connections.buffer_stalls) {}

network::~network() {
  stop();
  for (const listener& each : listeners_) ::close(each.fd);
}

void network::listen() {
  listen_settings listen = settings_.listen;
  listen.tls = resources_.tls != nullptr;
  opened_listeners opened = open_listeners(listen);
  listeners_ = std::move(opened.sockets);
  bound_port_ = opened.bound_port;
  stats_.listeners = listeners_.size();
}

void network::start(engine::engine& engine) {
  // (before the workers start: `stats` is read on their threads)
  constexpr std::size_t descriptors_per_worker = 3;  // epoll, eventfd, the spare descriptor
  stats_.reserved_fds = listeners_.size() + descriptors_per_worker * settings_.threads;
  for (std::size_t i = 0; i < settings_.threads; ++i)
    workers_.push_back(std::make_unique<worker>(*this, i));
  for (auto& each : workers_) each->start(engine);
}

void network::complete(engine::request_group& group, engine::completer by) {
  static_cast<worker*>(connection_of(group).home)->complete(group, by);
}

void network::ask_for_memory() {
  for (auto& each : workers_) each->ask_for_memory();
}

std::string network::describe_connections() const {
  const std::int64_t now = std::time(nullptr);
  std::string out;
  for (const listener& each : listeners_) {  // memcached's lines for a listening socket
    const std::string prefix = "STAT " + std::to_string(each.fd) + ":";
    out += prefix + "addr " + each.address + "\r\n";
    out += prefix + "state conn_listening\r\n";
    out += prefix + "secs_since_last_cmd " + std::to_string(now - stats_.started_at) + "\r\n";
  }
  for (const auto& each : workers_) each->describe(now, out);
  return out;
}

void network::stop() {
  for (auto& each : workers_) each->stop();
  workers_.clear();
}

}  // namespace gpuhash::server::net
