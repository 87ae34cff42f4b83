#pragma once

#include <future>
#include <system_error>
#include <type_traits>

namespace post {

// `work` on a thread of its own, its result from the future; where no thread can be started
// (std::system_error), a deferred future that runs it when its result is asked for. The
// future's destructor waits for the thread, so `work` may use what outlives the future.
template <class Work> std::future<std::invoke_result_t<const Work&>> beside(const Work& work)
{
    try {
        return std::async(std::launch::async, work);
    } catch (const std::system_error&) {
        return std::async(std::launch::deferred, work);
    }
}

} // namespace post
