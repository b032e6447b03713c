// A list of tasks threaded through a policy's per-task entries, as the kernel's run lists
// thread list_heads through task_structs: add at either end and unlink by id in O(1). An
// entry type holds its place in a `TaskLinks links` member.
#pragma once

#include "util/types.h"

namespace schedlab {

struct TaskLinks {
  TaskId prev = kNoTask, next = kNoTask;
};

struct TaskList {
  TaskId head = kNoTask, tail = kNoTask;
  bool empty() const { return head == kNoTask; }
};

template <class Entries>
void list_append(TaskList& list, Entries& entries, TaskId id) {
  TaskLinks& links = entries[id].links;
  links.prev = list.tail;
  links.next = kNoTask;
  if (list.tail != kNoTask)
    entries[list.tail].links.next = id;
  else
    list.head = id;
  list.tail = id;
}

template <class Entries>
void list_push_front(TaskList& list, Entries& entries, TaskId id) {
  TaskLinks& links = entries[id].links;
  links.prev = kNoTask;
  links.next = list.head;
  if (list.head != kNoTask)
    entries[list.head].links.prev = id;
  else
    list.tail = id;
  list.head = id;
}

template <class Entries>
void list_unlink(TaskList& list, Entries& entries, TaskId id) {
  const TaskLinks links = entries[id].links;
  if (links.prev != kNoTask)
    entries[links.prev].links.next = links.next;
  else
    list.head = links.next;
  if (links.next != kNoTask)
    entries[links.next].links.prev = links.prev;
  else
    list.tail = links.prev;
}

}  // namespace schedlab
