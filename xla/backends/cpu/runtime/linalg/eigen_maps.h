// Eigen views of the row-major buffers the decompositions work on (private to
// this folder: only the kernels' sources include Eigen).
#ifndef XLA_BACKENDS_CPU_RUNTIME_LINALG_EIGEN_MAPS_H_
#define XLA_BACKENDS_CPU_RUNTIME_LINALG_EIGEN_MAPS_H_

#include "Eigen/Core"

namespace xla::cpu {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ColMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using RowVector = Eigen::Matrix<T, 1, Eigen::Dynamic>;

}  // namespace xla::cpu

#endif  // XLA_BACKENDS_CPU_RUNTIME_LINALG_EIGEN_MAPS_H_
