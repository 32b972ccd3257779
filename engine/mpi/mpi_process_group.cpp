#include "engine/mpi/mpi_process_group.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>

namespace seqflow {
namespace {

// MPI counts are ints: messages go in pieces of at most this many bytes.
constexpr uint64_t kPiece = 1u << 30;

Status MpiError(const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return Status::Io(std::string("MPI ") + what + ": " + std::string(text, static_cast<size_t>(length)));
}

class MpiWorld final : public ProcessGroup {
 public:
  MpiWorld() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status Send(int to, std::string_view bytes) const override {
    uint64_t length = bytes.size();
    if (int rc = MPI_Send(&length, 1, MPI_UINT64_T, to, 0, MPI_COMM_WORLD); rc != MPI_SUCCESS)
      return MpiError("send", rc);
    for (uint64_t at = 0; at < length; at += kPiece) {
      const int piece = static_cast<int>(std::min(kPiece, length - at));
      if (int rc = MPI_Send(bytes.data() + at, piece, MPI_BYTE, to, 0, MPI_COMM_WORLD); rc != MPI_SUCCESS)
        return MpiError("send", rc);
    }
    return Status::Ok();
  }

  Result<std::string> Receive(int from) const override {
    uint64_t length = 0;
    if (int rc = MPI_Recv(&length, 1, MPI_UINT64_T, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
      return MpiError("receive", rc);
    std::string bytes(length, '\0');
    for (uint64_t at = 0; at < length; at += kPiece) {
      const int piece = static_cast<int>(std::min(kPiece, length - at));
      if (int rc = MPI_Recv(bytes.data() + at, piece, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          rc != MPI_SUCCESS)
        return MpiError("receive", rc);
    }
    return bytes;
  }

  Status Broadcast(int root, std::string* bytes) const override {
    uint64_t length = bytes->size();
    if (int rc = MPI_Bcast(&length, 1, MPI_UINT64_T, root, MPI_COMM_WORLD); rc != MPI_SUCCESS)
      return MpiError("broadcast", rc);
    bytes->resize(length);
    for (uint64_t at = 0; at < length; at += kPiece) {
      const int piece = static_cast<int>(std::min(kPiece, length - at));
      if (int rc = MPI_Bcast(bytes->data() + at, piece, MPI_BYTE, root, MPI_COMM_WORLD); rc != MPI_SUCCESS)
        return MpiError("broadcast", rc);
    }
    return Status::Ok();
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

bool MpiSession::LaunchedByMpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

MpiSession::MpiSession() = default;

Result<std::unique_ptr<MpiSession>> MpiSession::Start() {
  int provided = 0;
  if (int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided); rc != MPI_SUCCESS)
    return MpiError("init", rc);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return Status::Io("MPI gives no MPI_THREAD_SERIALIZED support (the E-step's reduce calls it from a worker thread)");
  }
  std::unique_ptr<MpiSession> session(new MpiSession());
  session->world_ = std::make_unique<MpiWorld>();
  return session;
}

MpiSession::~MpiSession() {
  world_.reset();
  MPI_Finalize();
}

}  // namespace seqflow
