data {
#include <incl_stanc_helper.stan>
}
