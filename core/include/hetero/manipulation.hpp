// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file manipulation.hpp
/// Slicing, joining and rearranging ops of torch's "Indexing, Slicing, Joining, Mutating Ops"
/// and "Other Operations" that models after 2015 need (issue #46): triangular masks, flips,
/// repeats, splits, the running sum and one-hot encoding. Each is composed from ops every
/// backend runs (views, comparisons, where, index_select, cat, add), so each runs on every
/// device without a kernel of its own, and records its gradient through them.
///
/// Dimensions count from the end when negative (IndexError out of range), as torch's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <hetero/dtype.hpp>
#include <hetero/export.hpp>
#include <hetero/tensor.hpp>

namespace hetero {

/// The lower triangle of the last two dimensions (elements with column - row <= diagonal;
/// others 0), as torch.tril: any dtype, batched over leading dimensions. ShapeError for fewer
/// than 2 dimensions. Gradient: tril(g, diagonal).
HETERO_API Tensor tril(const Tensor& a, std::int64_t diagonal = 0);
/// The upper triangle (column - row >= diagonal), as torch.triu; as tril otherwise.
HETERO_API Tensor triu(const Tensor& a, std::int64_t diagonal = 0);

/// A copy with the order of elements reversed along each of `dims`, as torch.flip (any dtype;
/// an empty list copies). ValueError when a dimension appears twice. Gradient: flip(g, dims).
HETERO_API Tensor flip(const Tensor& a, const std::vector<std::int64_t>& dims);

/// The tensor tiled `repeats[i]` times along dimension i, as torch.Tensor.repeat: with more
/// repeats than dimensions, leading dimensions of size 1 are added first. ShapeError for
/// fewer repeats than dimensions, ValueError for a negative repeat of a non-empty dimension
/// (a negative result size, as torch). Gradient: the tiles of g
/// summed.
HETERO_API Tensor repeat(const Tensor& a, const std::vector<std::int64_t>& repeats);

/// Views of consecutive pieces of `split_size` elements along `dim` (the last may be
/// smaller; one empty piece for an empty dimension), as torch.split with an int. ValueError
/// for a negative split_size, or 0 with a non-empty dimension (torch's message).
HETERO_API std::vector<Tensor> split(const Tensor& a, std::int64_t split_size,
                                     std::int64_t dim = 0);
/// Views of pieces of the given sizes along `dim`, as torch.split with a list
/// (split_with_sizes). ValueError unless the sizes are >= 0 and add up to the dimension.
HETERO_API std::vector<Tensor> split(const Tensor& a, const std::vector<std::int64_t>& split_sizes,
                                     std::int64_t dim = 0);
/// `chunks` pieces of ceil(size / chunks) elements along `dim` (fewer where that covers the
/// dimension sooner; `chunks` empty pieces for an empty dimension), as torch.chunk.
/// ValueError unless chunks > 0.
HETERO_API std::vector<Tensor> chunk(const Tensor& a, std::int64_t chunks, std::int64_t dim = 0);
/// The slices along `dim`, each without that dimension (views), as torch.unbind. ShapeError
/// for a 0-d tensor.
HETERO_API std::vector<Tensor> unbind(const Tensor& a, std::int64_t dim = 0);
/// Dimension `dim` split into `sizes` (their product must be its size; one of them may be
/// -1, inferred), as torch.unflatten: [2, 6, 3] with dim 1 and {2, -1} is [2, 2, 3, 3]; a view
/// where reshape gives one. ValueError for empty sizes, a size below -1 or two -1s;
/// ShapeError when the sizes do not multiply up to the dimension's size (or -1 is ambiguous:
/// a dimension of 0 elements); IndexError for `dim` out of range. Gradient: reshape's.
HETERO_API Tensor unflatten(const Tensor& a, std::int64_t dim,
                            const std::vector<std::int64_t>& sizes);

/// The running sum along `dim`, as torch.cumsum: bool and integers give int64 (exact),
/// floating dtypes keep theirs, `dtype` casts the input first (as torch's dtype argument).
/// Floating sums are accumulated in float64 where the device runs it (torch's cpu kernel
/// accumulates float32 in double), then rounded once; computed as log2(n) shifted additions
/// (Hillis and Steele 1986), so it runs on every backend. A 0-d tensor takes dim 0 or -1, and
/// its value must fit `dtype` (DTypeError for 1.35e308 into float32, as torch's scalar
/// conversion; a 1-d tensor's values become inf instead, as torch's).
/// Gradient: the reversed running sum of g.
HETERO_API Tensor cumsum(const Tensor& a, std::int64_t dim,
                         std::optional<DType> dtype = std::nullopt);

/// int64 [..., num_classes] with 1 at each index, as torch.nn.functional.one_hot:
/// `indices` int64 (DTypeError otherwise, torch's "one_hot is only applicable to index
/// tensor"); num_classes -1 takes max + 1 (ValueError for an empty tensor then). ValueError
/// for a negative index or one >= num_classes (torch's messages). Reads the indices' minimum
/// and maximum: waits for the device.
HETERO_API Tensor one_hot(const Tensor& indices, std::int64_t num_classes = -1);

/// Einstein summation, as torch.einsum: any number of operands, letters as subscripts
/// ("bhqd,bhkd->bhqk", "ij->ji", "i,i->"), at most one "..." per operand and in the output
/// for broadcast leading dimensions ("...ij,...jk->...ik"; aligned from the right, sizes 1
/// broadcast), a subscript repeated within an operand for its diagonal ("ii->i", "ii" the
/// trace), and an explicit output after "->" or the implicit one (the ellipsis dimensions,
/// then the subscripts that appear once, in alphabetical order). Indices missing from the
/// output are summed. Operands are contracted left to right (torch's order without
/// opt_einsum), each pair as one batched GEMM (matmul) for floating dtypes, or a broadcast
/// product summed for integer ones (of one dtype; bool is refused, as torch's bmm). ValueError
/// for a malformed equation (a character that is not a letter, a '.' outside "...", a second
/// ellipsis, an output subscript absent from the inputs or repeated, a subscript count that
/// is not the operand count; torch's messages); ShapeError for a subscript count that does not
/// fit an operand's rank, a repeated subscript over dimensions of different sizes, or sizes
/// that do not broadcast. Gradient: through the views, products, sums and matmuls it is made
/// of.
HETERO_API Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace hetero
