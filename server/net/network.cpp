// The network's listeners and workers (network.hpp); a worker's loop is in
// worker.cpp, a connection's reading and writing in connection_io.cpp.

#include "net/network.hpp"

#include <unistd.h>

#include "net/connection_memory.hpp"
#include "net/worker.hpp"

namespace gpuhash::server::net {

network::network(const network_settings& settings, network_resources resources,
                 engine::server_stats& stats)
    : settings_(settings),
      resources_(resources),
      stats_(stats),
      budget_(settings_.memory_limit, connection_allowance, stats.connections.buffer_bytes,
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
}

void network::start(engine::engine& engine) {
  for (std::size_t i = 0; i < settings_.threads; ++i)
    workers_.push_back(std::make_unique<worker>(*this, i));
  for (auto& each : workers_) each->start(engine);
}

void network::complete(engine::request_group& group, engine::completer by) {
  static_cast<worker*>(connection_of(group).home)->complete(group, by);
}

std::string network::describe_connections() const {
  std::string out;
  for (const auto& each : workers_) each->describe(out);
  return out;
}

void network::stop() {
  for (auto& each : workers_) each->stop();
  workers_.clear();
}

}  // namespace gpuhash::server::net
