// pipeline.cpp: parallel_pipeline on the pool: the filter chain as a list of stages, the
// tokens that bound the items in flight, the input filter's calls and end of input, the
// serial stages' buffers and their hand-on, cancellation with the finalization of dropped
// items, and set_end_of_input. Tasks, waits and exceptions are task.cpp's and wait.cpp's.
// Protocol: tbb/DESIGN.md [P-TBB Pipe].
#include <oneapi/tbb/detail/_pipeline_filters.h>
#include <oneapi/tbb/parallel_pipeline.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "internal.hpp"

namespace tbb::detail::r1 {

namespace tl = forkjoin::detail::tbb_layer;
using ctx_impl = task_group_context_impl;

namespace {

// An item between two filters: the previous filter's output and its sequence number
// ([P-TBB Pipe P4]; meaningful once a numbering step gave it one).
struct item {
  void* object = nullptr;
  std::size_t number = 0;
};

// The heap order of a serial_in_order stage's parked items: the smallest number on top.
struct later_first {
  bool operator()(const item& a, const item& b) const noexcept { return a.number > b.number; }
};

// A serial filter's state ([P-TBB Pipe P5], P6), all under its mutex.
struct serial_state {
  explicit serial_state(bool in_order) : ordered(in_order) {}
  std::mutex mutex;
  const bool ordered;
  bool busy = false;         // a thread runs this filter, or a task spawned to run it is on its way
  std::size_t next = 0;      // in order: the number this filter runs next
  std::size_t numbered = 0;  // the numbering stage (P4): numbers handed out on arrival
  std::vector<item> heap;    // in order: parked items, a min-heap by number
  std::deque<item> queue;    // out of order: parked items, first come first served
};

// The runtime owns the filters that create_filter allocated: virtual destructor, then the
// memory back to allocate_memory's heap.
struct filter_deleter {
  void operator()(d1::base_filter* f) const noexcept {
    f->~base_filter();
    deallocate_memory(f);
  }
};

struct stage {
  std::unique_ptr<d1::base_filter, filter_deleter> filter;
  std::unique_ptr<serial_state> serial;  // null for a parallel filter and for the input filter
};

// The input call running on this thread ([P-TBB Pipe P3]): set_end_of_input marks it. Saved and
// restored around each call, so a pipeline run inside an input filter has its own.
struct input_call {
  const d1::base_filter* filter;
  bool ended;
};
thread_local input_call* tls_input_call = nullptr;

constexpr std::size_t k_no_stage = ~std::size_t{0};

}  // namespace

class stage_task;

// One run of parallel_pipeline, on the caller's stack. Friend of d1::base_filter.
class pipeline {
 public:
  pipeline(d1::task_group_context& ctx, std::size_t tokens, const d1::filter_node& root);
  ~pipeline();
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;

  void run();

  // What the tasks do: each returns when its thread has nothing left to do for the pipeline.
  void input_task() noexcept;                                // holds a token and an input slot
  void handed_task(item it, std::size_t stage) noexcept;     // holds a token, owns a serial stage
  void cancel_input_task() noexcept;                         // [P-TBB Pipe P8] the same, cancelled
  void cancel_handed_task(item it, std::size_t s) noexcept;  // [P-TBB Pipe P8]
  d1::wait_context& tasks() noexcept { return tasks_; }

 private:
  void add_stages(const d1::filter_node& node);
  bool cancelled() noexcept { return ctx_impl::is_cancelled(ctx_); }
  void fail() noexcept;
  void spawn_task(bool input, item it, std::size_t s);
  bool call_input(item& it) noexcept;
  bool offer_input() noexcept;
  bool recycle() noexcept;
  bool carry(item& it, std::size_t s, bool owned) noexcept;
  bool enter(std::size_t s, item& it);
  void hand_on(std::size_t s, std::size_t done) noexcept;
  void drop(const item& it, std::size_t s) noexcept;
  void return_token() noexcept;

  d1::task_group_context& ctx_;
  std::vector<stage> stages_;
  bool input_serial_ = false;
  std::size_t numbering_stage_ = k_no_stage;  // [P-TBB Pipe P4] the first serial_in_order stage
  d1::wait_context tasks_{1};                 // [P-TBB Pipe P9] the root task's reference

  // [P-TBB Pipe P2] the input state, under input_mutex_.
  std::mutex input_mutex_;
  std::size_t free_tokens_;
  std::size_t input_slots_busy_ = 1;  // the root task's
  bool end_of_input_ = false;
  std::size_t produced_ = 0;  // a serial_in_order input filter's items so far ([P-TBB Pipe P4])
};

// A pipeline task: an input task (a token and an input slot) or a handed-on item (a token and
// ownership of the serial stage it waits at). Friend of d1::base_filter.
class stage_task final : public d1::task {
 public:
  stage_task(pipeline& p, d1::small_object_allocator alloc, bool input, item it, std::size_t s) noexcept
      : pipe_(p), alloc_(alloc), input_(input), item_(it), stage_(s) {}

  d1::task* execute(d1::execution_data& ed) override {
    if (input_)
      pipe_.input_task();
    else
      pipe_.handed_task(item_, stage_);
    finish(ed);
    return nullptr;
  }

  d1::task* cancel(d1::execution_data& ed) override {
    if (input_)
      pipe_.cancel_input_task();
    else
      pipe_.cancel_handed_task(item_, stage_);
    finish(ed);
    return nullptr;
  }

 private:
  // [P-TBB Pipe P9] the release is the task's last access to the pipeline, which its waiter
  // may destroy as soon as the count reaches zero.
  void finish(d1::execution_data& ed) noexcept {
    d1::wait_context& w = pipe_.tasks();
    alloc_.delete_object(this, ed);
    w.release();
  }

  pipeline& pipe_;
  d1::small_object_allocator alloc_;
  const bool input_;
  const item item_;
  const std::size_t stage_;
};

// [P-TBB Pipe P1] the leaves of the filter tree, left to right, are the stages.
pipeline::pipeline(d1::task_group_context& ctx, std::size_t tokens, const d1::filter_node& root)
    : ctx_(ctx), free_tokens_(tokens - 1) {  // the root task holds one token
  add_stages(root);
  input_serial_ = stages_.front().filter->is_serial();
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    if (stages_[s].filter->is_ordered()) {
      numbering_stage_ = s;
      break;
    }
  }
}

void pipeline::add_stages(const d1::filter_node& node) {
  if (node.left) {
    add_stages(*node.left);
    add_stages(*node.right);
    return;
  }
  stage st;
  st.filter.reset(node.create_filter());
  st.filter->my_pipeline = this;
  if (!stages_.empty() && st.filter->is_serial()) st.serial = std::make_unique<serial_state>(st.filter->is_ordered());
  stages_.push_back(std::move(st));
}

// [P-TBB Pipe P8] items still parked when the last task has ended are the pipeline's to drop.
pipeline::~pipeline() {
  for (std::size_t s = 1; s < stages_.size(); ++s) {
    serial_state* st = stages_[s].serial.get();
    if (st == nullptr) continue;
    for (const item& it : st->heap) stages_[s].filter->finalize(it.object);
    for (const item& it : st->queue) stages_[s].filter->finalize(it.object);
  }
}

// [P-TBB Pipe P9] the root task is an input task run on this thread; the wait helps, then
// rethrows a filter's exception ([P-TBB Cancel E2]).
void pipeline::run() {
  d1::small_object_allocator alloc{};
  auto* root = alloc.new_object<stage_task>(*this, alloc, true, item{}, 0);
  r1::execute_and_wait(*root, ctx_, tasks_, ctx_);
}

// [P-TBB Cancel E1] as run_task does for a task that throws: the first exception is kept and
// cancels the context.
void pipeline::fail() noexcept {
  if (tl::active_value(d1::global_control::terminate_on_exception) != 0) std::terminate();
  ctx_impl::record_exception(ctx_, std::current_exception());
}

void pipeline::spawn_task(bool input, item it, std::size_t s) {
  d1::small_object_allocator alloc{};
  auto* t = alloc.new_object<stage_task>(*this, alloc, input, it, s);
  tasks_.reserve();  // [P-TBB Pipe P9] before the task can run and release it
  try {
    r1::spawn(*t, ctx_);
  } catch (...) {  // not queued (no memory to grow the deque): the caller still holds a reference
    tasks_.release();
    alloc.delete_object(t);
    throw;
  }
}

void pipeline::input_task() noexcept {
  item it;
  do {
    if (!call_input(it) || !carry(it, 1, false)) return;
  } while (recycle());
}

void pipeline::handed_task(item it, std::size_t s) noexcept {
  if (carry(it, s, true) && recycle()) input_task();
}

void pipeline::cancel_input_task() noexcept {
  const std::lock_guard<std::mutex> lock(input_mutex_);
  --input_slots_busy_;
  ++free_tokens_;
}

void pipeline::cancel_handed_task(item it, std::size_t s) noexcept { drop(it, s); }

// [P-TBB Pipe P3] one call of the input filter, by a thread holding a token and an input
// slot. True: `it` is a new item for stage 1, holding the token; false: both were returned.
bool pipeline::call_input(item& it) noexcept {
  d1::base_filter& f = *stages_.front().filter;
  if (cancelled()) {  // [P-TBB Pipe P8] no input once cancelled
    cancel_input_task();
    return false;
  }
  // A parallel input filter: another call beside this one, unless another call has ended
  // the input meanwhile.
  if (!input_serial_ && !offer_input()) {
    cancel_input_task();
    return false;
  }
  input_call call{&f, false};
  input_call* const outer = std::exchange(tls_input_call, &call);
  void* out = nullptr;
  bool threw = false;
  try {
    out = f(nullptr);
  } catch (...) {
    threw = true;
    fail();
  }
  tls_input_call = outer;
  // End of input: set_end_of_input during the call, or a null item from a filter that may not
  // emit one (a void -> void filter returns null to stop).
  const bool ended = threw || call.ended || (out == nullptr && !f.object_may_be_null());
  {
    const std::lock_guard<std::mutex> lock(input_mutex_);
    --input_slots_busy_;
    if (ended) {
      end_of_input_ = true;
      ++free_tokens_;
    } else if (numbering_stage_ == 0) {
      it.number = produced_++;  // [P-TBB Pipe P4] a serial_in_order input filter's order
    }
  }
  if (ended) return false;
  if (input_serial_) offer_input();  // the slot is free again: the next call on another thread
  it.object = out;
  return true;
}

// [P-TBB Pipe P3] takes a free token and input slot for a new input task, if input goes on.
// False: it does not (end of input, or cancelled).
bool pipeline::offer_input() noexcept {
  if (cancelled()) return false;
  {
    const std::lock_guard<std::mutex> lock(input_mutex_);
    if (end_of_input_) return false;
    if (free_tokens_ == 0 || (input_serial_ && input_slots_busy_ != 0)) return true;
    --free_tokens_;
    ++input_slots_busy_;
  }
  try {
    spawn_task(true, item{}, 0);
  } catch (...) {
    cancel_input_task();
    fail();
  }
  return true;
}

// [P-TBB Pipe P7] an item left the last filter: its token goes to a new input call on this
// thread when input goes on and a slot is free, else back to the free count.
bool pipeline::recycle() noexcept {
  const bool stop = cancelled();
  const std::lock_guard<std::mutex> lock(input_mutex_);
  if (!stop && !end_of_input_ && !(input_serial_ && input_slots_busy_ != 0)) {
    ++input_slots_busy_;
    return true;
  }
  ++free_tokens_;
  return false;
}

// Runs `it` through stages s, s+1, ...; owned: this thread owns serial stage s already (a
// handed-on item). True: the item left the last filter, its token still held; false: it was
// parked (P5) or dropped (P8).
bool pipeline::carry(item& it, std::size_t s, bool owned) noexcept {
  for (; s < stages_.size(); ++s, owned = false) {
    stage& st = stages_[s];
    if (st.serial != nullptr && !owned) {
      bool entered = false;
      try {
        entered = enter(s, it);
      } catch (...) {  // no memory to park it
        fail();
        drop(it, s);
        return false;
      }
      if (!entered) return false;
    }
    if (cancelled()) {  // [P-TBB Pipe P8]
      drop(it, s);
      return false;
    }
    void* out = nullptr;
    try {
      out = (*st.filter)(it.object);
    } catch (...) {
      // [P-TBB Pipe P8] the filter did not consume its input: finalize it. A serial stage
      // stays busy: the context is cancelled, and what parks there is dropped at the end.
      fail();
      drop(it, s);
      return false;
    }
    if (st.serial != nullptr) hand_on(s, it.number);
    it.object = out;
  }
  return true;
}

// [P-TBB Pipe P5] true: this thread now owns serial stage s and runs it for `it`; false: `it`
// is parked there, and whoever runs the stage hands it on (P6).
bool pipeline::enter(std::size_t s, item& it) {
  serial_state& st = *stages_[s].serial;
  const std::lock_guard<std::mutex> lock(st.mutex);
  if (s == numbering_stage_) it.number = st.numbered++;  // [P-TBB Pipe P4]
  if (!st.busy && (!st.ordered || it.number == st.next)) {
    st.busy = true;
    return true;
  }
  if (st.ordered) {
    st.heap.push_back(it);
    std::push_heap(st.heap.begin(), st.heap.end(), later_first{});
  } else {
    st.queue.push_back(it);
  }
  return false;
}

// [P-TBB Pipe P6] serial stage s has run its item number `done`: the next eligible parked
// item, if any, goes to a new task that owns the stage; else the stage is free.
void pipeline::hand_on(std::size_t s, std::size_t done) noexcept {
  serial_state& st = *stages_[s].serial;
  item next;
  bool found = false;
  {
    const std::lock_guard<std::mutex> lock(st.mutex);
    if (st.ordered) {
      st.next = done + 1;
      if (!st.heap.empty() && st.heap.front().number == st.next) {
        std::pop_heap(st.heap.begin(), st.heap.end(), later_first{});
        next = st.heap.back();
        st.heap.pop_back();
        found = true;
      }
    } else if (!st.queue.empty()) {
      next = st.queue.front();
      st.queue.pop_front();
      found = true;
    }
    if (!found) st.busy = false;
  }
  if (!found) return;
  try {
    spawn_task(false, next, s);
  } catch (...) {
    fail();
    drop(next, s);
  }
}

// [P-TBB Pipe P8] an item that will not run stage s: that filter finalizes its input, and the
// token is not reused (the context is cancelled).
void pipeline::drop(const item& it, std::size_t s) noexcept {
  stages_[s].filter->finalize(it.object);
  return_token();
}

void pipeline::return_token() noexcept {
  const std::lock_guard<std::mutex> lock(input_mutex_);
  ++free_tokens_;
}

void parallel_pipeline(d1::task_group_context& ctx, std::size_t max_number_of_live_tokens,
                       const d1::filter_node& root) {
  if (max_number_of_live_tokens == 0) {
    // The library's own exception: terminate_on_exception applies ([P-TBB Cancel] E1).
    if (tl::active_value(d1::global_control::terminate_on_exception) != 0) std::terminate();
    throw std::invalid_argument("parallel_pipeline: max_number_of_live_tokens must be at least 1");
  }
  pipeline p(ctx_impl::actual(ctx), max_number_of_live_tokens, root);
  p.run();
}

// [P-TBB Pipe P3] called by an input filter that stops: marks this thread's call of it.
void set_end_of_input(d1::base_filter& bf) {
  input_call* const call = tls_input_call;
  if (call == nullptr || call->filter != &bf) tl::refuse("set_end_of_input outside its pipeline's input filter");
  call->ended = true;
}

}  // namespace tbb::detail::r1
