// ProcessGroup: the processes that run one node together (MPI ranks under `mpirun -np P
// seqflow run-node ...`), as a data-parallel kernel sees them: a rank, a size, ordered
// point-to-point messages and a broadcast. Between two ranks, messages arrive in the order they
// were sent. Kernels take a `const ProcessGroup*` and treat null as one process; they reduce in a
// fixed shard order (nodes/common/distributed_shards.h), so results are the same bits for any P.
// Implementations: engine/mpi/mpi_process_group.h. A failed call is an Io Status (an MPI error
// handler that returns); a rank that dies ends the whole job (mpirun aborts the others).
// Thread safety: calls may come from any thread, one at a time (MPI_THREAD_SERIALIZED).
#pragma once

#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace seqflow {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Status Send(int to, std::string_view bytes) const = 0;
  virtual Result<std::string> Receive(int from) const = 0;
  // `bytes` of rank `root` replace every other rank's.
  virtual Status Broadcast(int root, std::string* bytes) const = 0;
};

}  // namespace seqflow
