#include <cstdio>

int main()
{
    std::puts("post-cli " POST_VERSION);
    return 0;
}
