// SPDX-License-Identifier: Apache-2.0
#include "poison.hpp"

#include <atomic>
#include <mutex>
#include <new>
#include <unordered_map>

#include <hetero/error.hpp>

namespace hetero::cpu::poison {
namespace {

std::atomic<std::uint64_t> g_next_id{1};
std::atomic<std::size_t> g_count{0};  // marks held; read without the lock

struct Marks {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::exception_ptr> by_id;
};
Marks& marks() {
  static Marks* m = new Marks;  // never destroyed: buffers are freed by static destructors
  return *m;
}

template <class E>
std::exception_ptr retyped(const std::string& context, const std::exception& e) {
  return std::make_exception_ptr(E(context + e.what()));
}

}  // namespace

std::uint64_t next_id() noexcept { return g_next_id.fetch_add(1, std::memory_order_relaxed); }

void mark(std::uint64_t id, std::exception_ptr error) {
  if (id == 0) return;
  Marks& m = marks();
  std::lock_guard lock(m.mutex);
  if (m.by_id.emplace(id, std::move(error)).second) g_count.fetch_add(1);
}

bool any() noexcept { return g_count.load(std::memory_order_acquire) != 0; }

std::exception_ptr of(std::uint64_t id) noexcept {
  if (id == 0 || !any()) return nullptr;
  Marks& m = marks();
  std::lock_guard lock(m.mutex);
  const auto it = m.by_id.find(id);
  return it == m.by_id.end() ? nullptr : it->second;
}

void forget(std::uint64_t id) noexcept {
  if (!any()) return;
  Marks& m = marks();
  std::lock_guard lock(m.mutex);
  if (m.by_id.erase(id)) g_count.fetch_sub(1);
}

std::exception_ptr with_context(std::exception_ptr cause, const std::string& context) {
  try {
    std::rethrow_exception(cause);
  } catch (const OutOfMemoryError& e) {
    return retyped<OutOfMemoryError>(context, e);
  } catch (const std::bad_alloc& e) {
    return std::make_exception_ptr(
        OutOfMemoryError(context + "out of host memory (" + e.what() + ")"));
  } catch (const DTypeError& e) {
    return retyped<DTypeError>(context, e);
  } catch (const ShapeError& e) {
    return retyped<ShapeError>(context, e);
  } catch (const IndexError& e) {
    return retyped<IndexError>(context, e);
  } catch (const NotImplementedError& e) {
    return retyped<NotImplementedError>(context, e);
  } catch (const InternalError& e) {
    return retyped<InternalError>(context, e);
  } catch (const std::exception& e) {
    return retyped<Error>(context, e);
  } catch (...) {
    return std::make_exception_ptr(Error(context + "an exception of unknown type"));
  }
}

}  // namespace hetero::cpu::poison
