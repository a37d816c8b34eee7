// NCCL's NVLSTree all-reduce (NCCL 2.19+, several hosts of NVSwitch GPUs, Hopper or newer):
// inside each host the NVSwitch reduces block j of the buffer (S / ppn bytes) onto local GPU
// j (NVLS: ToSwitch legs); local GPU j of every host then all-reduces its block across
// hosts, over its own NIC, by NCCL's double binary tree (each block in two halves, one per
// tree, the second tree the mirror of the first); each local GPU j multicasts its summed
// block to the other GPUs of its host through the NVSwitch (FromSwitch legs). Pipelined
// in slices. Only when asked for (NCCL_ALGO=NVLSTree, --algo nvls_tree): auto's candidates
// are NCCL's ring, tree and single-host NVLS.
#pragma once

#include "sim/algo/algorithm_info.hpp"

namespace collsim {

extern const AlgorithmInfo kNvlsTreeAlgorithm;

}  // namespace collsim
