// The ProcessGroup of an MPI job (Open MPI from Debian): `mpirun -np P seqflow run-node ...`
// starts P copies of seqflow, and MpiSession joins them as MPI_COMM_WORLD.
// Thread safety: MPI_THREAD_SERIALIZED — calls from any thread, one at a time (the ordered
// reduce of distributed_shards.h is such a caller).
#pragma once

#include <memory>
#include <string>

#include "engine/base/process_group.h"

namespace seqflow {

class MpiSession {
 public:
  // True when this process was started by mpirun (Open MPI's or PMIx's rank variables are set).
  static bool LaunchedByMpirun();
  // MPI_Init_thread; an Io error when MPI cannot start or gives less than SERIALIZED.
  static Result<std::unique_ptr<MpiSession>> Start();
  ~MpiSession();  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  ProcessGroup* world() { return world_.get(); }

 private:
  MpiSession();
  std::unique_ptr<ProcessGroup> world_;
};

}  // namespace seqflow
