// SPDX-License-Identifier: MIT
#include "train/distributed.h"

#include <arpa/inet.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#ifdef MORPHEUS_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "core/subprocess.h"

namespace morpheus::train {
namespace {

using Clock = std::chrono::steady_clock;

// The type of a Gloo/NCCL process group: since LibTorch 2.0 they derive from c10d::Backend (the
// collectives are the same), before that from c10d::ProcessGroup.
#if TORCH_VERSION_MAJOR >= 2
using GroupBase = c10d::Backend;
#else
using GroupBase = c10d::ProcessGroup;
#endif

// The integer value of environment variable `name`; `fallback` when unset.
StatusOr<int> env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(v, &end, 10);
  if (errno != 0 || *end != '\0' || x < 0 || x > 1000000) {
    return invalid_argument(
        std::string("environment variable ") + name + "=" + v + " is not a non-negative integer",
        "set it as torchrun or Slurm would, or unset it");
  }
  return static_cast<int>(x);
}

std::string env_str(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

std::string error_text(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

std::chrono::milliseconds to_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

// The rendezvous store. LibTorch 2.4+ asks for the libuv server by default, which builds without
// libuv (Debian's) refuse; those fall back to the classic server, which speaks the same protocol.
c10::intrusive_ptr<c10d::TCPStore> make_tcp_store(const std::string& host,
                                                  c10d::TCPStoreOptions options) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  try {
    return c10::make_intrusive<c10d::TCPStore>(host, options);
  } catch (const std::exception& e) {
    if (!options.useLibUV || error_text(e).find("libuv") == std::string::npos) throw;
    options.useLibUV = false;
  }
#endif
  return c10::make_intrusive<c10d::TCPStore>(host, options);
}

// A TCP port on 127.0.0.1 that was free a moment ago.
StatusOr<int> free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return io_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  if (!ok) return io_error("cannot find a free port on 127.0.0.1", "set MASTER_PORT");
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace

StatusOr<DistEnv> dist_env_from_environment() {
  DistEnv env;
  const bool torchrun = std::getenv("RANK") != nullptr && std::getenv("WORLD_SIZE") != nullptr;
  MORPHEUS_ASSIGN_OR_RETURN(const int slurm_tasks, env_int("SLURM_NTASKS", 1));
  if (torchrun) {
    env.launcher = "torchrun";
    MORPHEUS_ASSIGN_OR_RETURN(env.rank, env_int("RANK", 0));
    MORPHEUS_ASSIGN_OR_RETURN(env.world_size, env_int("WORLD_SIZE", 1));
    MORPHEUS_ASSIGN_OR_RETURN(env.local_rank, env_int("LOCAL_RANK", 0));
    MORPHEUS_ASSIGN_OR_RETURN(env.local_world_size, env_int("LOCAL_WORLD_SIZE", 1));
  } else if (slurm_tasks > 1) {
    env.launcher = "slurm";
    env.world_size = slurm_tasks;
    MORPHEUS_ASSIGN_OR_RETURN(env.rank, env_int("SLURM_PROCID", 0));
    MORPHEUS_ASSIGN_OR_RETURN(env.local_rank, env_int("SLURM_LOCALID", 0));
    MORPHEUS_ASSIGN_OR_RETURN(env.local_world_size, env_int("SLURM_NTASKS_PER_NODE", 1));
    if (std::getenv("MASTER_ADDR") == nullptr) {
      return invalid_argument(
          "Slurm job of " + std::to_string(slurm_tasks) + " tasks but MASTER_ADDR is not set",
          "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)");
    }
  } else {
    return env;
  }
  if (env.world_size < 1 || env.rank >= env.world_size) {
    return invalid_argument("rank " + std::to_string(env.rank) + " is outside a world of " +
                                std::to_string(env.world_size) + " processes (" + env.launcher +
                                " variables)",
                            "check RANK/WORLD_SIZE or SLURM_PROCID/SLURM_NTASKS");
  }
  env.local_world_size = std::max(env.local_world_size, env.local_rank + 1);
  env.master_addr = env_str("MASTER_ADDR", "127.0.0.1");
  MORPHEUS_ASSIGN_OR_RETURN(env.master_port, env_int("MASTER_PORT", 29500));
  if (env.master_port < 1 || env.master_port > 65535) {
    return invalid_argument("MASTER_PORT=" + std::to_string(env.master_port) + " is not a port");
  }
  return env;
}

struct DataParallel::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<GroupBase> pg;
  std::vector<torch::Tensor> params;
  std::vector<bool> row_sparse;
  std::vector<std::vector<size_t>> buckets;  // dense parameters, in reverse registration order
};

DataParallel::DataParallel(DistEnv env, DistOptions options)
    : env_(std::move(env)), options_(std::move(options)), impl_(std::make_unique<Impl>()) {}

DataParallel::~DataParallel() {
  // After a failed collective the group may still hold operations that wait for the dead or hung
  // rank; destroying it would wait for each of them (up to the timeout apiece). The process is
  // about to exit with the error, so the group is left to it.
  if (failed_) static_cast<void>(impl_.release());
}

StatusOr<std::unique_ptr<DataParallel>> DataParallel::join(const DistEnv& env,
                                                           const DistOptions& options,
                                                           int cuda_device) {
  std::unique_ptr<DataParallel> dp(new DataParallel(env, options));
  std::string backend = options.backend;
  if (backend == "auto") backend = cuda_device >= 0 ? "nccl" : "gloo";
  if (backend != "gloo" && backend != "nccl") {
    return invalid_argument("unknown --dist-backend " + backend, "use auto, gloo or nccl");
  }
#ifndef MORPHEUS_HAVE_NCCL
  if (backend == "nccl") {
    return Status(StatusCode::kUnimplemented,
                  "--dist-backend nccl: this build of morpheus has no NCCL (Debian's LibTorch " +
                      std::to_string(TORCH_VERSION_MAJOR) + "." +
                      std::to_string(TORCH_VERSION_MINOR) + " is CPU-only)",
                  "use --dist-backend gloo (CPU tensors), or build against a CUDA LibTorch with "
                  "NCCL (cmake finds it and defines MORPHEUS_HAVE_NCCL)");
  }
#endif
  dp->backend_ = backend;
  const auto timeout = to_ms(options.timeout_s);
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<uint16_t>(env.master_port);
    so.isServer = env.rank == 0;
    so.numWorkers = static_cast<size_t>(env.world_size);
    so.waitWorkers = true;
    so.timeout = timeout;
    auto tcp = make_tcp_store(env.master_addr, so);
    dp->impl_->store = c10::make_intrusive<c10d::PrefixStore>("morpheus", tcp);
    if (backend == "gloo") {
      auto go = c10d::ProcessGroupGloo::Options::create(timeout);
      const std::string iface = env_str("GLOO_SOCKET_IFNAME", "");
      if (!iface.empty()) {
        go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(iface));
      } else if (is_loopback(env.master_addr)) {
        go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      } else {
        go->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      }
      go->threads = 2;
      dp->impl_->pg = c10::make_intrusive<c10d::ProcessGroupGloo>(dp->impl_->store, env.rank,
                                                                  env.world_size, go);
    } else {
#ifdef MORPHEUS_HAVE_NCCL
      if (cuda_device < 0) {
        return invalid_argument("--dist-backend nccl needs CUDA tensors",
                                "use --device cuda, or --dist-backend gloo on the CPU");
      }
      // NCCL binds its communicator to the current device: this rank's, before the group exists.
      c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)
          ->setDevice(
              c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(cuda_device)));
      auto no = c10d::ProcessGroupNCCL::Options::create();
      no->timeout = timeout;
      dp->impl_->pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(dp->impl_->store, env.rank,
                                                                  env.world_size, no);
#endif
    }
  } catch (const std::exception& e) {
    return io_error("rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size) +
                        ": cannot join the " + backend + " process group at " + env.master_addr +
                        ":" + std::to_string(env.master_port) + ": " + error_text(e),
                    "every rank must start within --dist-timeout (" +
                        std::to_string(options.timeout_s) +
                        " s) and reach MASTER_ADDR:MASTER_PORT; is the port in use?");
  }
  MORPHEUS_RETURN_IF_ERROR(dp->barrier());
  return dp;
}

Status DataParallel::failure(const std::string& op, const std::exception& e) const {
  failed_ = true;
  return io_error("rank " + std::to_string(env_.rank) + " of " + std::to_string(env_.world_size) +
                      ": " + op + " failed: " + error_text(e),
                  "another rank died or sent nothing within --dist-timeout (" +
                      std::to_string(static_cast<int64_t>(options_.timeout_s)) +
                      " s); see its error; the last checkpoint in --out is intact: rerun with "
                      "--resume");
}

void DataParallel::set_parameters(const std::vector<at::Tensor>& params,
                                  const std::vector<bool>& row_sparse) {
  impl_->params = params;
  impl_->row_sparse = row_sparse;
  impl_->row_sparse.resize(params.size(), false);
  impl_->buckets.clear();
  const double limit = options_.bucket_mb * 1024.0 * 1024.0;
  std::vector<size_t> current;
  double bytes = 0;
  for (size_t i = params.size(); i-- > 0;) {
    if (impl_->row_sparse[i] && options_.sparse_embeddings) continue;
    const double b = static_cast<double>(params[i].numel() * params[i].element_size());
    if (!current.empty() && bytes + b > limit) {
      impl_->buckets.push_back(std::move(current));
      current.clear();
      bytes = 0;
    }
    current.push_back(i);
    bytes += b;
  }
  if (!current.empty()) impl_->buckets.push_back(std::move(current));
}

Status DataParallel::broadcast(const std::vector<at::Tensor>& tensors) {
  try {
    torch::NoGradGuard no_grad;
    for (const auto& t : tensors) {
      std::vector<at::Tensor> one{t.detach()};
      impl_->pg->broadcast(one)->wait();
    }
  } catch (const std::exception& e) {
    return failure("broadcast of the initial parameters", e);
  }
  return ok_status();
}

Status DataParallel::all_reduce_sum(at::Tensor& t) {
  try {
    std::vector<at::Tensor> one{t};
    impl_->pg->allreduce(one)->wait();
  } catch (const std::exception& e) {
    return failure("all-reduce of the step statistics", e);
  }
  return ok_status();
}

Status DataParallel::barrier() {
  try {
    impl_->pg->barrier()->wait();
  } catch (const std::exception& e) {
    return failure("barrier", e);
  }
  return ok_status();
}

// Touched-row exchange of table `k`: the union of the ranks' touched rows (an all-reduce of a
// per-row mask), then one all-reduce of those rows only, copied back into the gradient. The
// result is the same on every rank (the all-reduce's), as with the dense path.
// *done = false when the union covers most of the table (the caller all-reduces it densely).
Status DataParallel::sync_sparse(size_t k, bool* done) {
  torch::NoGradGuard no_grad;
  torch::Tensor g = impl_->params[k].mutable_grad();
  const int64_t rows = g.size(0);
  const int64_t dim = g.numel() / std::max<int64_t>(1, rows);
  torch::Tensor flat = g.view({rows, dim});
  const auto t0 = Clock::now();
  // One pass over the table: a row's L1 norm is 0 exactly when the row is (NaN rows count as
  // touched, so the step's non-finite check still sees them).
  std::vector<at::Tensor> mask{flat.norm(1, {1}).ne(0).to(torch::kFloat32)};
  stats_.sparse_scan_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  impl_->pg->allreduce(mask)->wait();
  const torch::Tensor ids = mask[0].gt(0).nonzero().squeeze(1);
  const int64_t n = ids.size(0);
  stats_.sparse_dense_bytes += static_cast<double>(g.numel() * g.element_size());
  if (4 * n >= 3 * rows) {
    *done = false;
    ++stats_.sparse_tables_dense;
    return ok_status();
  }
  *done = true;
  stats_.sparse_rows += n;
  if (n == 0) return ok_status();
  std::vector<at::Tensor> part{flat.index_select(0, ids)};
  stats_.sparse_bytes += static_cast<double>((part[0].numel() + rows) * part[0].element_size());
  impl_->pg->allreduce(part)->wait();
  flat.index_copy_(0, ids, part[0]);
  return ok_status();
}

Status DataParallel::sync_gradients() {
  const auto t0 = Clock::now();
  stats_ = ExchangeStats{};
  torch::NoGradGuard no_grad;
  auto& params = impl_->params;
  for (auto& p : params) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
  }
  try {
    // Dense buckets go out first (asynchronous); the row exchanges run meanwhile.
    std::vector<std::vector<size_t>> buckets = impl_->buckets;
    std::vector<torch::Tensor> flats;
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    auto launch = [&](const std::vector<size_t>& bucket) {
      std::vector<torch::Tensor> parts;
      for (size_t i : bucket) parts.push_back(params[i].grad().reshape({-1}));
      flats.push_back(torch::cat(parts));
      stats_.dense_bytes += static_cast<double>(flats.back().numel() * flats.back().element_size());
      std::vector<at::Tensor> one{flats.back()};
      works.push_back(impl_->pg->allreduce(one));
    };
    for (const auto& bucket : buckets) launch(bucket);
    if (options_.sparse_embeddings) {
      for (size_t k = 0; k < params.size(); ++k) {
        if (!impl_->row_sparse[k]) continue;
        bool done = false;
        const auto ts = Clock::now();
        MORPHEUS_RETURN_IF_ERROR(sync_sparse(k, &done));
        stats_.sparse_seconds += std::chrono::duration<double>(Clock::now() - ts).count();
        if (!done) {
          buckets.push_back({k});
          launch(buckets.back());
        }
      }
    }
    for (size_t b = 0; b < works.size(); ++b) {
      works[b]->wait();
      int64_t offset = 0;
      for (size_t i : buckets[b]) {
        torch::Tensor g = params[i].mutable_grad();
        g.copy_(flats[b].narrow(0, offset, g.numel()).view_as(g));
        offset += g.numel();
      }
    }
  } catch (const std::exception& e) {
    return failure("gradient all-reduce", e);
  }
  stats_.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return ok_status();
}

std::vector<size_t> rank_micro_batches(size_t steps, int world, int rank, int64_t accum) {
  std::vector<size_t> out;
  const size_t per_step = static_cast<size_t>(world) * static_cast<size_t>(accum);
  for (size_t s = 0; s < steps; ++s) {
    for (int64_t a = 0; a < accum; ++a) {
      out.push_back(s * per_step + static_cast<size_t>(rank) * static_cast<size_t>(accum) +
                    static_cast<size_t>(a));
    }
  }
  return out;
}

uint64_t micro_batch_seed(int64_t seed, int64_t micro) {
  // splitmix64 of the pair.
  uint64_t z = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(micro);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) & 0x7FFFFFFFFFFFFFFFULL;
}

StatusOr<std::vector<std::string>> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  if (!in) return io_error("cannot read /proc/self/cmdline");
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  size_t pos = 0;
  while (pos < all.size()) {
    const size_t end = all.find('\0', pos);
    args.push_back(all.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (!args.empty()) args.erase(args.begin());
  return args;
}

namespace {

// Spawns this executable with `args` and the variables in `extra` added to the environment.
StatusOr<pid_t> spawn_self(const std::vector<std::string>& args,
                           const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {"/proc/self/exe"};
  argv.insert(argv.end(), args.begin(), args.end());
  SpawnOptions options;
  options.env = extra;
  StatusOr<pid_t> pid = spawn_process(argv, options);
  if (!pid.ok()) {
    Status error = pid.status();
    return error.prepend("cannot start a rank");
  }
  return pid;
}

}  // namespace

Status launch_local_ranks(int nproc, const std::vector<std::string>& args, double grace_s) {
  MORPHEUS_ASSIGN_OR_RETURN(const int port, free_loopback_port());
  std::vector<pid_t> pids;
  for (int r = 0; r < nproc; ++r) {
    const std::vector<std::string> extra = {"RANK=" + std::to_string(r),
                                            "LOCAL_RANK=" + std::to_string(r),
                                            "WORLD_SIZE=" + std::to_string(nproc),
                                            "LOCAL_WORLD_SIZE=" + std::to_string(nproc),
                                            "MASTER_ADDR=127.0.0.1",
                                            "MASTER_PORT=" + std::to_string(port)};
    auto pid = spawn_self(args, extra);
    if (!pid.ok()) {
      for (pid_t p : pids) ::kill(p, SIGTERM);
      for (pid_t p : pids) ::waitpid(p, nullptr, 0);
      return pid.status();
    }
    pids.push_back(*pid);
  }
  Status first = ok_status();
  Clock::time_point failed_at{};
  bool failed = false;
  size_t running = pids.size();
  while (running > 0) {
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, failed ? WNOHANG : 0);
    if (done > 0) {
      const auto it = std::find(pids.begin(), pids.end(), done);
      if (it == pids.end()) continue;
      const int rank = static_cast<int>(it - pids.begin());
      *it = -1;
      --running;
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && !failed) {
        failed = true;
        failed_at = Clock::now();
        first = io_error("rank " + std::to_string(rank) + " of " + std::to_string(nproc) + " " +
                             exit_status_of(status).describe(),
                         "see its error above; the last checkpoint in --out is intact: rerun "
                         "with --resume");
      }
      continue;
    }
    if (done < 0 && errno != EINTR && errno != 0) break;
    if (failed && std::chrono::duration<double>(Clock::now() - failed_at).count() > grace_s) {
      for (pid_t p : pids) {
        if (p > 0) ::kill(p, SIGKILL);
      }
    }
    if (failed) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return first;
}

}  // namespace morpheus::train
